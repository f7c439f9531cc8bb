// sim --department and an interactive session's failed command, beside sim/cli.test.ts's cases.
import './cli.test.ts';
