// audit on worker threads against one thread, beside audit.test.ts's cases.
import './audit.test.ts';
