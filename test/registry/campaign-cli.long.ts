// campaign create's deadline, retries and image folder, beside campaign-cli.test.ts's cases.
import './campaign-cli.test.ts';
