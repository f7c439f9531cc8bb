// gen | head ends gen and its workers quietly, beside gen.test.ts's cases.
import './gen.test.ts';
