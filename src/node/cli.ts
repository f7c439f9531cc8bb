// `saphir` command dispatcher. Each command lives in commands/<name>.ts and exports
// `run(args: string[]): Promise<number>` (the exit code).
import { UsageError } from './args.ts';

interface Command {
  file: string;
  summary: string;
}

const COMMANDS: Record<string, Command> = {
  check: { file: 'check', summary: 'check ticket codes (arguments or stdin)' },
  gen: { file: 'gen', summary: 'generate signed ticket codes for a block' },
  audit: { file: 'audit', summary: 'verify a file of codes against Article 3' },
  decode: { file: 'decode', summary: 'decode a scanner capture (HID, serial, image)' },
  scan: { file: 'scan', summary: 'read a scanner attached to this computer' },
  image: { file: 'image', summary: 'firmware images: image inspect FILE' },
  sim: { file: 'sim', summary: 'hardware simulator (scenarios, interactive, bridges, --pty)' },
  demo: { file: 'demo', summary: 'the simulator demo (npm start)' },
  flash: { file: 'flash', summary: 'flash a firmware image over a serial link' },
  device: { file: 'device', summary: 'device info --port PATH' },
  ledger: { file: 'ledger', summary: 'ledger export --port PATH' },
  ports: { file: 'ports', summary: 'serial ports and the devices that answer on them' },
};

function usage(): string {
  const rows = Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(8)} ${c.summary}`);
  return ['usage: saphir <command> [options]', '', ...rows, '', 'saphir <command> --help for details'].join('\n');
}

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h') {
    process.stdout.write(usage() + '\n');
    return name ? 0 : 2;
  }
  const cmd = COMMANDS[name];
  if (!cmd) {
    process.stderr.write(`saphir: unknown command '${name}'\n${usage()}\n`);
    return 2;
  }
  try {
    const mod = (await import(`./commands/${cmd.file}.ts`)) as { run(args: string[]): Promise<number> };
    return await mod.run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`saphir ${name}: ${e.message}\n`);
      return 2;
    }
    process.stderr.write(`saphir ${name}: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.SAPHIR_DEBUG) process.stderr.write(`${(e as Error)?.stack}\n`);
    return 1;
  }
}
