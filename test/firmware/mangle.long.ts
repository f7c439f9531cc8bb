// The camera module and the parts compiled apart shortened with the core's names, beside mangle.test.ts's cases.
import './mangle.test.ts';
