// A fleet scenario with its own registry, through the real binary, beside fleet/cli.test.ts's case.
import './cli.test.ts';
