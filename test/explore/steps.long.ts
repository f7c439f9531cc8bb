// steps.test.ts with an update cut at each of its four cut points (npm test: two).
import './steps.test.ts';
