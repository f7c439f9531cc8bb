// Every panel and scanner of the web page in Chromium (web.test.ts: its core path in npm test).
import './web.test.ts';
