// Every message of the CLI and the simulator, in English. fr.ts has the same keys (its type is this
// file's), and test/cli/messages.test.ts walks both. Functions take what the message needs.

export const en = {
  cli: {
    usage: 'usage: saphir <command> [options]',
    more: 'saphir help COMMAND or saphir COMMAND --help for the details of a command; saphir --version',
    unknown: (name: string) => `unknown command '${name}'`,
    version: (v: string) => `saphir ${v}`,
    internal: 'internal error (SAPHIR_DEBUG=1 shows where)',
    summaries: {
      check: 'check ticket codes (arguments or stdin)',
      gen: 'generate signed ticket codes for a block',
      audit: 'verify a file of codes against Article 3',
      decode: 'decode a scanner capture (HID, serial, image)',
      scan: 'read a scanner attached to this computer',
      image: 'firmware images: image inspect FILE',
      sim: 'hardware simulator (scenarios, interactive, bridges, --pty)',
      demo: 'the simulator demo (npm start)',
      flash: 'flash a firmware image over a serial link',
      device: 'what a device runs and trusts, asked on its service port (device info)',
      ledger: "a device's payment ledger, read on its service port (ledger export)",
      registry:
        "the fleet's central registry of paid tickets: serve it, enrol devices, reports, update campaigns, notices",
      notice: 'operator notices: create, sign, inspect, push',
      ports: 'serial ports and the devices that answer on them',
      help: 'help [COMMAND]: this list, or the help of a command',
    },
  },
  args: {
    lang: (v: string) => `--lang must be fr or en, not '${v}'`,
    int: (name: string, min: number, max: number) => `${name} must be an integer from ${min} to ${max}`,
    unknownOption: (opt: string) => `unknown option '${opt}'`,
    needsValue: (opt: string) => `option '${opt}' needs a value`,
    noValue: (opt: string) => `option '${opt}' takes no value`,
    unexpected: (arg: string) => `unexpected argument '${arg}'`,
    other: (detail: string) => `bad arguments: ${detail}`,
  },
  os: {
    /** A system error (errno code) said in words; `where` is the address or path it concerns, when known. */
    errno: (code: string, where?: string): string => {
      const at = where ? ` (${where})` : '';
      switch (code) {
        case 'ENOENT':
          return 'no such file or directory';
        case 'EACCES':
        case 'EPERM':
          return 'permission denied';
        case 'EISDIR':
          return 'is a directory, not a file';
        case 'ENOTDIR':
          return 'a part of the path is not a directory';
        case 'EEXIST':
          return 'already exists';
        case 'ENOSPC':
          return 'no space left on the disk';
        case 'EROFS':
          return 'read-only file system';
        case 'EBUSY':
          return 'busy: another program holds it';
        case 'EMFILE':
        case 'ENFILE':
          return 'too many open files';
        case 'ENOTTY':
          return 'not a serial port';
        case 'EIO':
          return 'input/output error';
        case 'ENODEV':
        case 'ENXIO':
          return 'no such device (unplugged?)';
        case 'EPIPE':
          return 'the other side closed';
        case 'EADDRINUSE':
          return `address already in use${at}: another server listens there (--port to choose another)`;
        case 'EADDRNOTAVAIL':
          return `address not available on this computer${at}`;
        case 'ECONNREFUSED':
          return `connection refused${at}: nothing listens there`;
        case 'ECONNRESET':
          return `connection reset by the other side${at}`;
        case 'ETIMEDOUT':
          return `no answer in time${at}`;
        case 'ENOTFOUND':
        case 'EAI_AGAIN':
          return `unknown host name${at}`;
        case 'EHOSTUNREACH':
        case 'ENETUNREACH':
          return `host unreachable${at}`;
        default:
          return `system error ${code}${at}`;
      }
    },
  },
  keyFile: {
    cannotRead: (option: string, value: string, why: string) =>
      `${option}: '${value}' is neither 64 hex digits nor a key file that can be read (${why})`,
    notKey: (option: string, file: string) =>
      `${option}: ${file} is no key file: 64 hex digits, or JSON {"seed_hex": "…"} or {"public_key_hex": "…"}`,
    noField: (option: string, file: string) =>
      `${option}: ${file}: give seed_hex or public_key_hex (public_hex), 64 hex digits`,
    needSeed: (option: string, file: string) =>
      `${option}: ${file}: needs the private seed (seed_hex or 64 hex digits), not a public key`,
  },
  keys: {
    keyId: (path: string) => `--key: ${path}: key_id must be an integer from 0 to 255`,
    seedHex: (path: string) => `--key: ${path}: seed_hex must be 64 hex digits (a 32-byte Ed25519 private seed)`,
    testKey: 'warning: tickets signed with the TEST key (id 0), refused by a production validator',
    refused: (where: string, why: string) => `${where}: public key refused by the device (${why})`,
    conflict: (id: number) => `--key: two different keys for key id ${id}`,
  },
  check: {
    empty: 'no code to check: give codes as arguments, or one per line on standard input',
    emptyArg: 'an empty code: give the code itself (quoted if it has spaces)',
    quote: (n: number) =>
      `hint: a code was given as ${n} separate arguments (its spaces split it); put it in quotes: saphir check 'SPH1:…'`,
  },
  gen: {
    needBlock: '--emission and --block are required',
    fullExcludes: '--full excludes --from/--count',
    fullOrRange: 'give --full, or --from N and --count K',
  },
  audit: {
    oneFile: 'one FILE at most (or - for standard input)',
    cannotRead: (file: string, why: string) => `cannot read ${file}: ${why}`,
    summary: (l: string, g: string, i: string, b: string) =>
      `Audit: ${l} lines, ${g} genuine codes, ${i} invalid, ${b} blank lines`,
    block: (e: number, b: number) => `Emission ${e}, block ${b}`,
    tickets: (d: string, dup: string, m: string) =>
      `  distinct tickets: ${d} of 3,000,000 — duplicates: ${dup} — missing: ${m}`,
    header: ['prize', 'expected', 'found'],
    losing: 'losing',
    dupLine: (line: number, n: number) => `    line ${line}: ticket #${n} seen before`,
    missingRange: (a: number, b: number) => (a === b ? `    #${a}` : `    #${a} to ${b}`),
    missingTitle: '  missing numbers (first ones):',
    dupTitle: '  duplicates (first ones):',
    invalidTitle: (n: string) => `Invalid codes: ${n}`,
    invalidLine: (line: number, why: string, id: string) => `  line ${line}: ${why}${id}`,
    byReason: (why: string, n: string) => `  ${why}: ${n}`,
    ok: 'COMPLIANT',
    notOk: 'NOT COMPLIANT',
    result: 'Result',
    noBlock: 'no genuine code: no block to check',
    colon: ':',
    lineTooLong: (max: number) => `a line longer than ${max} bytes`,
  },
  drop: {
    timeout: 'incomplete code (timeout)',
    'too-long': 'code too long',
    noise: 'code cut by line noise',
    'bad-report': 'bad HID report',
    overflow: 'codes lost: the decoder queue overflowed',
  },
  decode: {
    source: (list: string) => `--source must be one of ${list}`,
    layout: '--layout must be us, fr or auto',
    layoutKeyboard: '--layout applies to --source hid-keyboard only',
    rawImage: '--width/--height/--format apply to --source image only',
    format: '--format must be y8 or rgba',
    noFile: 'no capture FILE given',
    read: (f: string, m: string) => `${f}: cannot read: ${m}`,
    notHex: (w: string) => `'${w}' is not a hex byte`,
    tooLong: (n: number) => `more than ${n} bytes`,
    line: (f: string, n: number, m: string) => `${f}:${n}: line skipped: ${m}`,
    none: (f: string) => `${f}: no code`,
    dropped: (f: string, why: string, partial: string) => `${f}: ${why}${partial ? ` "${partial}"` : ''}`,
    lost: (f: string, why: string, n: number) => `${f}: ${why} (${n})`,
    png: (f: string) => `${f}: unreadable PNG (damaged, or not a PNG)`,
    raw: (f: string, n: number, want: number) => `${f}: ${n} bytes, ${want} expected for this image format`,
    tooLarge: (f: string, kind: string, w: number, h: number, max: number) =>
      `${f}: ${kind} of ${w}×${h} pixels, more than the ${max} million pixels decoded`,
    jpeg: (f: string) => `${f}: JPEG images are not decoded; convert it to PNG`,
    notImage: (f: string) => `${f}: neither PNG nor JPEG (give raw pixels with --width/--height/--format)`,
  },
  scan: {
    one: 'give exactly one of --hid VID:PID|PATH or --serial PATH',
    serialOnly: '--baud and --ack apply to --serial only',
    hidOnly: '--mode and --layout apply to --hid only',
    hidSpec: (opt: string, v: string) =>
      `${opt} takes VID:PID (hex ids, e.g. 0c2e:0b61) or a path (/dev/hidraw0), not "${v}"`,
    mode: '--mode must be keyboard or pos',
    layout: '--layout must be us, fr or auto',
    ready: (what: string) => `ready: scan a ticket (${what}) — Ctrl+C to stop`,
    drop: {
      timeout: 'incomplete code, scan again',
      'too-long': 'code too long, scan again',
      noise: 'garbled code, scan again',
      'bad-report': 'HID read disturbed, scan again',
      overflow: 'codes came faster than they were read: scan the last tickets again',
    },
    unplugged: (d: string) => `scanner unplugged (${d}): waiting for it to come back…`,
    reopened: (d: string) => `scanner plugged back (${d})`,
    error: (d: string) => `scanner error: ${d}`,
  },
  hid: {
    libusb: (d: string) =>
      `node-hid cannot start: libusb is missing (${d}). Install it: sudo apt-get install libusb-1.0-0`,
    libudev: (d: string) =>
      `node-hid cannot start: libudev is missing (${d}). Install it: sudo apt-get install libudev1`,
    load: (d: string) => `node-hid cannot start: ${d} (reinstall with npm ci)`,
    notFound: (id: string, d: string) => `no HID device ${id}; connected: ${d}`,
    permission: (id: string, d: string, rule: string) =>
      `permission denied opening ${id} (${d}). Add this udev rule to /etc/udev/rules.d/70-saphir-scanner.rules:\n  ${rule}\n` +
      `then run: sudo udevadm control --reload-rules && sudo udevadm trigger (and replug the scanner)`,
    keyboardOwned: (id: string, d: string) =>
      `the system keeps the keyboard interface of ${id} for itself (${d}). Set the scanner to HID POS mode ` +
      `(saphir scan --hid ${id} --mode pos) or to its serial (USB COM) mode (saphir scan --serial PATH)`,
    open: (id: string, d: string) => `cannot open ${id}: ${d}`,
  },
  serial: {
    open: (path: string, d: string) => `cannot open ${path}: ${d}`,
  },
  image: {
    usage: 'give the subcommand and the file: saphir image inspect FILE',
    cannotRead: (file: string, m: string) => `cannot read ${file}: ${m}`,
    invalid: 'INVALID image',
    thisBoard: ' (SAPHIR handheld)',
    otherBoard: ' (another board)',
    signer: {
      dev: 'published development key',
      given: 'given key (--key)',
      other: 'another key',
      unknown: 'key not recorded',
    },
    file: 'File',
    version: 'Version',
    board: 'Board',
    counter: 'Security counter',
    bundle: 'Bundle',
    sha: 'SHA-256',
    signature: 'Signature',
    bytes: (n: number) => `${n} bytes`,
    fileSize: (file: string, n: number) => `${file} (${n} bytes)`,
    hashOk: 'matches',
    hashBad: 'MISMATCH',
    sigOk: 'valid',
    sigBad: 'INVALID',
    sigUnchecked: 'not checked',
    manifest: 'Manifest',
    manifestState: {
      valid: 'signed (header + SHA-256): the service port takes it',
      absent: 'none (format before 4 Dec 2026): boots, but the service port refuses it',
      invalid: 'INVALID signature: the service port refuses it',
    } as Record<'valid' | 'absent' | 'invalid', string>,
    colon: ':',
    intact: 'Image intact and signed.',
    /** The image checks' detail (src/image/format.ts says it in English). */
    detail: (d: string) => d,
  },
  demo: {
    title: 'SAPHIR 250 000 € — validator demo (simulator, real firmware in QuickJS)',
    name: 'validator demo',
    building: 'Building the firmware…',
    summary: (name: string) => `Summary — ${name}`,
    scans: (n: number, outcomes: string) => `  ${n} tickets scanned: ${outcomes}`,
    outcomes: (w: number, l: number, r: number) => `${w} winning, ${l} losing, ${r} refused`,
    paid: (n: number, total: string) => `${n} payment(s) in the device's payment ledger, ${total}`,
    /** How the simulator booted (hw-sim/sim.ts bootMode). */
    mode: (m: string) =>
      m === 'developer' ? "developer: this checkout's firmware (firmware/dist), no signed image" : m,
    firmware: (mode: string, hash: string) => `firmware: ${mode}; SHA-256 ${hash.slice(0, 16)}…`,
    ok: 'Demo passed.',
    failed: 'The demo failed.',
  },
  service: {
    refusal: {
      malformed: 'truncated or malformed image',
      hash: 'corrupted image (SHA-256 mismatch)',
      signature: 'signature refused (not the firmware key)',
      board: 'image for another device model',
      rollback: "older than the device's security counter (anti-rollback)",
      'too-large': 'image too large for a slot',
      busy: 'the running image is not confirmed yet',
      flash: 'flash write error',
      incomplete: 'incomplete transfer',
      'no-session': 'no update in progress',
      manifest: 'image without a signed manifest (built before 4 Dec 2026): build and sign it again',
    } as Record<string, string>,
    noPort: (p: string) => `no such serial port: ${p}`,
    busy: (p: string) => `serial port busy (open in another program): ${p}`,
    openFailed: (p: string, m: string) => `cannot open ${p}: ${m}`,
    noAnswer: (baud: string) => `no answer from the device at ${baud} baud (cable, device off, or another speed?)`,
    linkLost: (closed: boolean): string =>
      closed
        ? 'the serial port closed (cable unplugged, simulator stopped?): run the command again, the transfer resumes'
        : 'link interrupted: run the command again, the transfer resumes',
    refused: (why: string, detail?: string) => `refused by the device: ${why}${detail ? ` — ${detail}` : ''}`,
    verify: (detail?: string) => `verification failed${detail ? `: ${detail}` : ''}`,
    protocol: (detail?: string) => `protocol error${detail ? `: ${detail}` : ''}`,
    port: '--port PATH is required',
    auth: (detail?: string) =>
      `service access refused: the device does not trust this technician key (--tech-key)${detail ? ` — ${detail}` : ''}`,
    devTechKey: (command: string) =>
      `saphir ${command}: warning: using the published DEVELOPMENT technician key (--tech-key FILE for yours); a production device refuses it`,
  },
  flash: {
    oneImage: 'one IMAGE file expected',
    cannotRead: (file: string, m: string) => `cannot read ${file}: ${m}`,
    newer: 'newer',
    older: 'older',
    same: 'same',
    device: 'Device',
    image: 'Image',
    deviceId: 'Device id',
    board: 'Board',
    version: 'Version',
    slotOf: (slot: string) => `slot ${slot}`,
    unconfirmed: ', unconfirmed',
    none: 'none',
    counter: 'Security counter',
    slot: (slot: string) => `Slot ${slot}`,
    empty: 'empty',
    invalid: 'invalid',
    rate: 'KB/s',
    left: 'left',
    refused: (why: string) => `refused: ${why}`,
    nothingWritten: 'Nothing was written.',
    alreadyRuns: 'This image already runs on the device, confirmed: nothing to do (--force reinstalls it).',
    dryRun: 'Dry run: the image would be accepted. Nothing was written.',
    waiting: (slot: string) => `This image is already written to slot ${slot}, waiting for a restart.`,
    resumed: (n: number) => `Resumed: the device already held ${n} bytes.`,
    written: (v: string, slot: string, hash: string) =>
      `Image ${v} written to slot ${slot} and verified (SHA-256 ${hash}…).`,
    nextReset: 'It starts in test mode at the next reset.',
    didNotStart: (what: string) => `after the restart the device runs ${what}: the new image did not start`,
    noImage: 'no image',
    testMode: (v: string) =>
      `Restarted on ${v} in test mode: the device confirms it after its self-test (otherwise the old one returns at the next reset).`,
    confirmed: (v: string) => `Restarted on ${v}, confirmed.`,
    devKeyOnProduction: 'image signed with the DEVELOPMENT key: a production device refuses it',
    sameNumber: 'same number, other image',
    noPortMatches: (glob: string) => `no port matches ${glob}`,
    /** The outcome column of the several-device summary. */
    outcome: {
      upToDate: 'up to date',
      dryRun: 'dry run',
      restartPending: 'written, restart pending',
      testMode: 'ok, test mode',
      confirmed: 'ok, confirmed',
    },
    summary: ['Device', 'Port', 'Before → after', 'Result', 'Time'],
    portOrPorts: '--port PATH (or --ports GLOB) is required',
  },
  notice: {
    cannotRead: (path: string, why: string) => `cannot read ${path}: ${why}`,
    malformed: (path: string, why: string) => `${path} is not a notice: ${why}`,
    invalid: (why: string) => `the notice would be invalid: ${why}`,
    needVersion: 'give --version N (or --from FILE: its version + 1)',
    emission: (arg: string) => `--emission ${arg}: not NUMBER:NAME:ON_SALE[:CLOSES] (dates YYYY-MM-DD)`,
    close: (arg: string) => `--close ${arg}: not NUMBER:YYYY-MM-DD of an emission of the notice`,
    created: (v: number, file: string) => `notice version ${v} written to ${file} (not signed: saphir notice sign)`,
    signed: (v: number, file: string, pub: string) =>
      `notice version ${v} signed into ${file} (operator key ${pub.slice(0, 16)}…)`,
    devKey:
      'WARNING: signed with the published DEVELOPMENT operator key (anyone can sign with it; production devices refuse it): --operator-key for a real fleet',
    version: 'Notice version',
    limits: (payout: number, offline: number, id: number) =>
      `Limits: payout ${payout} €, offline ${offline} €, ID from ${id} €`,
    cols: ['Emission', 'Name', 'On sale from', 'Closes', 'Claim deadline'],
    onSale: 'on sale',
    noDeadline: 'none yet',
    holidays: 'Extra holidays:',
    departmentHolidays: (code: string) => `Holidays of department ${code}:`,
    deadlinesFor: (dep: string) =>
      dep
        ? `Claim deadlines for a device of department ${dep}`
        : 'Claim deadlines for a device without department holidays (--department D: that department’s)',
    department: (arg: string) => `${arg}: not a department (01…95, 2A, 2B, 971…976)`,
    unsigned: 'Signature: none (saphir notice sign)',
    verifies: (pub: string, dev: boolean) =>
      `Signature: valid, operator key ${pub.slice(0, 16)}…${dev ? ' (the published DEVELOPMENT key)' : ''}`,
    noVerify: (pub: string, dev: boolean) =>
      `Signature: DOES NOT VERIFY with operator key ${pub.slice(0, 16)}…${dev ? ' (the published development key; --operator-key PUB)' : ''}`,
    pushUnsigned: (path: string) => `${path} is not signed: a device refuses it (saphir notice sign)`,
    refused: (why: string, detail: string) => `the device refused the notice: ${why} (${detail})`,
    reasons: {
      older: 'not newer than the notice it holds',
      unsigned: 'not signed',
      signature: 'not signed by its operator key',
      'no-key': 'the device has no operator key',
      malformed: 'malformed',
      silent: 'the device does not answer',
      auth: 'service access refused',
    } as Record<string, string>,
    pushed: (v: number, previous: number) => `notice version ${v} stored on the device (it held ${previous || 'none'})`,
    rebooted: 'device restarted: the notice applies now',
    atNextStart: 'the notice applies at the next start of the device',
  },
  device: {
    usage: 'give the subcommand: saphir device info --port PATH',
    deviceId: 'Device id',
    board: 'Board',
    running: 'Running',
    slotOf: (slot: string) => `slot ${slot}`,
    testMode: ', test mode, unconfirmed',
    noImage: 'no valid image',
    counter: 'Security counter',
    counterOf: (n: number) => `counter ${n}`,
    bytes: (n: number) => `${n} bytes`,
    confirmed: ', confirmed',
    toTest: ', to test',
    empty: 'empty',
    invalid: (d: string) => `invalid (${d})`,
    slot: (slot: string) => `Slot ${slot}`,
    interrupted: 'Interrupted transfer',
    received: (got: number, size: number, hash: string) => `${got} / ${size} bytes (${hash}…)`,
    firmwareKey: 'Firmware key (SHA-256)',
    techKey: 'Technician key (SHA-256)',
    kind: 'Kind',
    production: 'PRODUCTION device',
    development: (provisioned: boolean) =>
      `development device (${provisioned ? 'provisioned keys' : 'published development keys'})`,
    trusted: 'Trusted keys',
    trustUnknown: 'unknown (provisioning unreadable?)',
    notice: 'Operator notice',
    noNotice: 'none',
    access: 'Service access',
    granted: 'granted (technician key trusted)',
    refused: (why: string) => `refused: ${why}`,
  },
  ledger: {
    usage: 'give the subcommand: saphir ledger export --port PATH',
    format: '--format must be csv or json',
    exported: (n: number) => `${n} payment(s) exported`,
    toUrl: "--to takes the registry's http://host:port URL",
    noRegistry: (url: string, why: string) => `the registry at ${url} did not answer (${why}): nothing was marked sent`,
    registryRefused: (error: string, detail: string) => `the registry refused the batch: ${error} ${detail}`,
    countMismatch: (url: string, sent: number, got: number) =>
      `${url} answered ${got} result(s) for ${sent} payment(s) sent: not the registry's answer, nothing was marked sent`,
    notMatched: (url: string, n: number, total: number) =>
      `${n} of ${total} result(s) from ${url} are not for the ticket sent: those stay on the device to be sent again (the others were marked sent)`,
    pushed: (n: number, conflicts: number, invalid: number) =>
      `${n} offline payment(s) sent to the registry, ${conflicts} conflict(s), ${invalid} refused`,
    oneOf: '--report, --journal and --to go one at a time',
    noJournal: 'this device has no check journal (firmware before the counter): no report',
    journalExported: (n: number) => `${n} journal entr(y/ies) exported`,
    reportKind: '--report is x (the current period, the default) or z (the period the last Z closed)',
    noZ: 'no Z report on this device: no closed period (--report x gives the current period)',
    report: (r: {
      z: boolean;
      from: string;
      to: string;
      payments: number;
      total: string;
      today: number;
      todayTotal: string;
      unpaid: number;
      unpaidTotal: string;
      centre: number;
      scans: number;
      refused: string;
    }) =>
      [
        r.z
          ? `Z report: ${r.from} → ${r.to} (the period the last Z closed)`
          : `Period: ${r.from} → ${r.to} (since the last Z report)`,
        `Payments: ${r.payments}, ${r.total} (today ${r.today}, ${r.todayTotal})`,
        `Wins shown and not paid: ${r.unpaid}, ${r.unpaidTotal}`,
        `Sent to a payment centre: ${r.centre}`,
        `Tickets read: ${r.scans}`,
        `Refusals: ${r.refused || 'none'}`,
      ].join('\n'),
    sinceStart: 'first use',
  },
  sim: {
    /** A problem the simulator says in English (scanner models, scenarios, tickets, screenshot paths). */
    detail: (d: string) => d,
    registryUrl: '--registry takes an http://host:port URL or embedded',
    deviceId: (v: string) => `--device-id '${v}': 1 to 16 printable ASCII characters, no space`,
    department: (v: string) => `--department ${v}: not a department (01…95, 2A, 2B, 971…976)`,
    deviceIdIs: (id: string) => `device id: ${id}`,
    variant: '--variant must be quickjs, quickjs-ng or xs',
    xsMissing: (reason: 'not-installed' | 'not-built' | 'broken', install: string) =>
      `the XS engine is not available: ${
        reason === 'not-installed'
          ? '@agoric/xsnap is not installed (npm leaves it out when building XS fails, as without a C compiler)'
          : reason === 'not-built'
            ? "@agoric/xsnap's worker was not built"
            : "@agoric/xsnap's worker does not start"
      }; install a C compiler and the package: ${install}`,
    hidMode: '--hid-mode must be keyboard or pos',
    unexpected: (a: string) => `unexpected argument '${a}' (scenarios go after --scenario)`,
    noFile: (f: string) => `${f}: no such file`,
    scenarioTooLarge: (f: string, max: number) => `${f}: a scenario file is at most ${max} bytes; nothing runs`,
    servicePort: (p: string) => `service port: ${p}`,
    flashFile: (f: string, size: number) =>
      `--flash ${f}: not a saved chip (a file of ${size} bytes that saphir sim wrote); give a new file name for a fresh chip`,
    oneMode: (modes: string) => `one mode at a time: ${modes}`,
    productionTechKey:
      'a production device (--firmware-key other than the development key) needs its own technician key: --tech-key HEX|FILE (the development one is published)',
    noSocat: 'socat is not installed: it makes the pseudo-terminal. Install it: sudo apt-get install socat',
    help: (kinds: string, maxWait: string) => `Commands:
  SPH1:…            scan this code (pasted or typed)
  ticket PRIZE      generate a new ticket of this prize (0 = losing) and scan it, e.g. "ticket 150"
  forged PRIZE      a ticket of this prize signed with another key
  rescan            scan the last code again
  via SCANNER       pick the scanner: ${kinds}
  ok | c | 0…9      press a key
  wait DURATION     advance simulated time (ms, s, min, h, d; at most ${maxWait}), e.g. "wait 10s"
  reboot | cut | boot         reboot, cut the power, power on
  ledger            the recorded payments
  network down|up   cut or restore the network (with --registry)
  shot FILE.png     the display as a PNG
  quit`,
    ready: (via: string) => `Simulator ready (scanner: ${via}). "help" for the commands.`,
    unknown: (s: string) => `unknown command: ${s} ("help")`,
    ledger: (n: number) => `${n} payment(s) in the ledger`,
    via: (v: string) => `scanner: ${v}`,
    viaUnknown: (v: string, kinds: string) => `no scanner "${v}": ${kinds} (the scanner stays as it was)`,
    ticketSent: (id: string, prize: string, via: string, code: string) => `→ ticket ${id} ${prize} via ${via}: ${code}`,
    losing: 'losing',
    rescan: (via: string, code: string) => `→ again via ${via}: ${code}`,
    nothingToRescan: 'nothing to scan again: scan a code or a "ticket" first',
    waitNeeds: (max: string) =>
      `wait takes a duration: a number and ms, s, min, h or d, at most ${max}, e.g. "wait 10s"`,
    waitBad: (v: string, max: string) =>
      `"${v}" is not a duration: a number and ms, s, min, h or d, at most ${max}, e.g. "wait 10s"`,
    waitTooLong: (v: string, max: string) =>
      `${v} is more than one wait may last, ${max} (each simulated minute runs the firmware, a day takes tens of seconds): wait in several steps`,
    waitProgress: (done: string, all: string) => `… ${done} of ${all} simulated`,
    waited: (d: string, stopped: boolean) => (stopped ? `wait stopped after ${d}` : `${d} simulated`),
    networkWord: (v: string) => `"network down" or "network up", not "${v}"`,
    alreadyOn: 'device already on ("reboot" to restart it)',
    badPrize: 'not a prize of the table (0, 5, 10, 15, 30, 150, 500, 2500, 25000, 250000)',
    off: 'device off ("boot" to power on)',
    bridged: (what: string) => `real scanner attached: ${what}`,
    bridgeError: (what: string, why: string) => `${what} scanner: ${why}`,
    serialWord: 'serial',
    bye: 'bye',
    commandFailed: (cmd: string, why: string) => `${cmd}: failed (${why}); the device goes on`,
    saved: (f: string) => `written: ${f}`,
    pass: 'ok',
    fail: 'FAIL',
    line: 'line',
    display: 'Display when it failed:',
    scenarioOk: (n: number, virtual: string, wallMs: string) =>
      `passed: ${n} steps, ${virtual} simulated in ${wallMs} ms`,
    scenarioFail: (line: number) => `failed at line ${line}`,
    total: (ok: number, all: number) => `${ok}/${all} scenarios passed`,
    noNetwork: 'no network: start with --registry URL|embedded',
    network: (up: boolean): string => (up ? 'network up' : 'network down'),
    noPort: (why: string) => `no service port: ${why}`,
    pathTaken: (path: string) =>
      `${path} exists and is not a pseudo-terminal link: choose another path (nothing was touched there)`,
    badPath: (path: string, c: string) =>
      `${JSON.stringify(path)} cannot be a --pty path: socat would read ${JSON.stringify(c)} as part of its address (use letters, digits, . _ - + /; nothing was created)`,
    socatFailed: (why: string) => `socat could not make the port: ${why}`,
    socatEnded: (why: string) => `socat ended (${why})`,
    deviceKeysProblem: (why: string) => `device keys: ${why}`,
    devDeviceKey: '; device key: the published DEVELOPMENT device key (a development registry only)',
    ownDeviceKey: (pub: string) => `; device key ${pub} (saphir registry devices add ID ${pub})`,
    runDeviceKey: (pub: string) =>
      `; device key of this run ${pub} (a new one each run on a blank chip; the device enrols it on the development central registry at start)`,
    keyEnrolled: (id: string, replaced: boolean) =>
      `device ${id}'s key enrolled on the development central registry` +
      (replaced ? ' (it replaces an earlier run’s under this id)' : ''),
    keyNotEnrolled: (why: string) =>
      `the device's key is not enrolled on the central registry (${why}): it will refuse its requests, the device will pay offline, within its offline limit`,
    keyProduction: (id: string, pub: string) =>
      `the central registry is a production one: it hears enrolled devices only (saphir registry devices add ${id} ${pub})`,
    devKeys:
      'DEVELOPMENT device: it trusts the published development keys (--firmware-key, --tech-key to provision others)',
    provisioned: (production: boolean, fw: string, tech: string) =>
      `${production ? 'PRODUCTION device' : 'development device'}, provisioned: firmware key SHA-256 ${fw}, technician key SHA-256 ${tech}`,
    registryAnswers: (url: string) => `central registry: ${url} (it answers)`,
    registryDown: (url: string, why: string) =>
      `the central registry ${url} does not answer (${why}): the device will pay offline, within its offline limit, until it does`,
    noAnswerIn: (s: number) => `no answer in ${s} s`,
    registryByUrl: 'expect-registry needs --registry embedded',
    embeddedRegistry: (url: string) => `embedded registry: ${url} (in-memory PGlite)`,
    powerCut: 'power cut',
    provisionRefused: (file: string, why: string) => `--provision ${file}: not programmed (${why})`,
    provisionNotBlank: 'the chip already holds another image; factory programming needs a blank chip',
    provisionTooLarge: (n: number) => `larger than a slot (${n} bytes)`,
    poweredOn: (mode: string) => `on: ${mode}`,
    restarted: (mode: string) => `restarted: ${mode}`,
    payments: (n: number) => `${n} payment(s)`,
    ptyUnknown: (w: string) => `unknown command: ${w} (cut, boot, reboot, ledger, quit)`,
    web: (url: string) => `Web simulator: ${url}\nCtrl-C to stop.`,
    noBrowser: (cmd: string, url: string) => `could not open a browser (${cmd}); open ${url}`,
  },
  build: {
    missing: (f: string) => `${f} missing: building the firmware (npm run build)…`,
    newer: (f: string) => `${f} changed since the last build: rebuilding the firmware (npm run build)…`,
  },
  step: {
    powerOff: '(power off)',
    deviceOff: 'the device is off (add a boot step)',
    scanner: (m: string) => `scanner: ${m}`,
    nowhere: (via: string) => `the firmware opened no ${via} input: the scan went nowhere`,
    display: (what: string, row: number, ms: number) =>
      `expected ${what}${row ? ` on line ${row}` : ''} within ${ms} ms`,
    beep: (beep: string, ms: number, heard: string) =>
      `expected a ${beep} beep within ${ms} ms; heard: ${heard || 'nothing'}`,
    led: (want: string, is: string) => `expected the LED ${want}, it is ${is}`,
    /** The words around a step's syntax where its report describes it (hw-sim/runner.ts describe). */
    words: {
      losing: 'losing',
      forged: 'forged',
      pressAt: (key: string, ms: number) => `press ${key} at ${ms} ms`,
      onLine: (n: number) => `on line ${n}`,
      maxFailures: (n: number) => `max failures ${n}`,
      confirmed: (n: number) => `${n} confirmed`,
      failed: (n: number) => `${n} failed`,
      by: (d: string) => `by ${d}`,
      viaRegistry: 'via the central registry',
      inline: 'given in the scenario',
      refused: 'refused',
      resumed: 'resumed',
      cutAt: (n: number) => `power cut at flash operation ${n}`,
      cloneOf: (d: string) => `clone of ${d}`,
    },
    campaignWant: (want: string, state: string, phase: number, confirmed: number, failed: number) =>
      `expected ${want}; it is ${state}, phase ${phase}, ${confirmed} confirmed, ${failed} failed`,
    /** An LED colour of a scenario (green, red, off) as this language says it. */
    ledColor: (c: string) => c,
    ledger: (want: string, n: number, list: string) =>
      `expected the ledger ${want}; it holds ${n}${list ? ': ' + list : ''}`,
    screenshot: (file: string, why: string) => `cannot write the screenshot ${file}: ${why}`,
    noSnapshot: 'rollback without an earlier snapshot on this device',
    needsRegistry: 'this scenario needs a registry (--registry URL|embedded)',
    campaign: (detail: string) => `campaign: ${detail}`,
    noPrinter: 'this device has no receipt printer',
    receipt: (text: string, ms: number, printed: string) =>
      `expected a receipt with "${text}" within ${ms} ms; printed: ${printed || 'nothing'}`,
    receiptNone: (n: number, first: string) => `expected no receipt; ${n} printed: ${first}`,
    notice: (refused: boolean, reason: string, detail: string) =>
      refused
        ? 'expected the device to refuse the notice; it took it'
        : `the device refused the notice: ${reason} (${detail})`,
    noticeHeld: (want: number, is: number) =>
      `expected notice version ${want || 'none'} on the device's flash; it holds ${is || 'none'}`,
    registryControl:
      'a `registry: down|up` step stops and starts a registry the simulator started itself (--registry embedded, or a fleet scenario), not one given by URL',
    registry: (want: string, n: number, held: string, conflicts: number) =>
      `expected the registry ${want}; it holds ${n} ticket(s)${held ? ': ' + held : ''}, ${conflicts} conflict(s)`,
    provisionOn: 'provision: the device must be off',
    noImage: (mode: string) => `expected a signed image running; mode ${mode || 'off'}`,
    imageSlot: (want: string, is: string) => `expected the image of slot ${want}, running slot ${is}`,
    imageConfirmed: (confirmed: boolean) => `expected a ${confirmed ? 'confirmed' : 'trial'} image`,
  },
  /** The web simulator's worker (hw-sim/web/worker.ts): what it says to the page. */
  web: {
    off: 'the device is off ("Power on" to switch it on)',
    optionSyntax: (part: string) => `option "${part}": write name=value`,
    chipSize: (n: number, size: number) => `chip file: ${n} bytes, a chip has ${size}; nothing changed`,
    storage: (why: string) => `IndexedDB: ${why}`,
    noStorage: (why: string) => `IndexedDB: ${why} (the chip will not survive a reload)`,
    stopped: 'stopped',
    notLoaded: 'the firmware bundle is not loaded yet',
    /** How the device booted, beside its LED. */
    mode: (m: string) => (m === 'developer' ? 'developer (no signed image)' : m),
    power: (what: string) => `power: ${what}`,
    /** A line of the device's log (the firmware writes it in English) for the page's log panel. */
    log: (line: string) => line,
    /** A file the worker could not load from the page's server. */
    fetchFailed: (file: string, status: number) =>
      `cannot load ${file}: ${status ? `the server answers HTTP ${status}` : 'the server does not answer'} (is saphir sim --web still running?)`,
    /** A browser error (IndexedDB): its DOMException name and message. */
    browser: (name: string, message: string) => message || name,
  },
  scenario: {
    invalid: 'invalid scenario:',
    /** A problem of hw-sim/scenario.ts (which says it in English), with its file and line. */
    problem: (file: string, line: number, message: string) => `${file}:${line}: ${message}`,
  },
  ports: {
    none: 'No serial port found (plug the device in, or check the permissions on /dev).',
    cols: ['Port', 'by-id', 'USB', 'Serial', 'Device', 'Version'],
    noAnswer: 'no answer',
  },
  registry: {
    noticePublished: (v: number, file: string) =>
      `notice version ${v} published (${file}): devices get it at their next sync`,
    noticeRefused: (file: string, why: string) => `${file} not published: ${why}`,
    noticeLatest: (v: number, at: string) => `latest notice: version ${v}, published ${at}`,
    noNotice: 'no notice published',
    dev: 'WARNING: development fleet — the published device key is accepted (enrol a device or use --production)',
    listening: (url: string, db: string) => `registry listening on ${url} (database: ${db})`,
    added: (id: string) => `device ${id} enrolled`,
    revoked: (id: string) => `device ${id} revoked`,
    notRevoked: (id: string) => `device ${id} unknown or already revoked`,
    none: 'no device enrolled',
    never: 'never',
    cols: ['device', 'enrolled', 'last seen', 'state'],
    active: 'active',
    revokedWord: 'revoked',
    conflicts: (n: number) => `conflicts: ${n}`,
    totals: (n: number, eur: number) => `payments: ${n}, total €${eur}`,
    offline: (n: number) => `${n} offline`,
    perDevice: 'per device',
    perDay: 'per day',
    notSeen: (d: number) => `devices not seen for ${d} days`,
    regrants: (n: number) =>
      `regrants (a device asking for or paying again a ticket it holds: answer lost, rolled back or cloned): ${n}`,
    released: (n: number) =>
      `reservations released (granted, never confirmed within the reservation, then granted to another device): ${n}`,
    releasedLine: (c: Record<string, unknown>, reserved: string, released: string) =>
      `  ticket ${c.emission}/${c.block}/${c.number}: reserved by ${c.device_id} at ${reserved}, released to ${c.to_device_id} at ${released} (if ${c.device_id} paid it, its confirmation shows as a conflict)`,
    regrantLine: (c: Record<string, unknown>, paid: string, asked: string) =>
      c.kind === 'reserved'
        ? `  ticket ${c.emission}/${c.block}/${c.number}: reserved by ${c.device_id}, granted again at ${asked} before any confirmation (answer lost, or paid twice: check its ledger)`
        : c.kind === 'paid-twice'
          ? `  ticket ${c.emission}/${c.block}/${c.number}: PAID TWICE by ${c.device_id} (confirmed at ${paid}, a second payment confirmed at ${asked}): rolled back or cloned`
          : `  ticket ${c.emission}/${c.block}/${c.number}: paid by ${c.device_id} at ${paid}, asked again by it at ${asked} (refused)`,
    registryKey: (pub: string, dev: boolean) =>
      dev
        ? `WARNING: answers signed with the published DEVELOPMENT registry key (anyone can forge them): --registry-key for a real fleet`
        : `answers signed with registry key ${pub}`,
    conflictLine: (c: Record<string, unknown>, first: string, paid: string) =>
      `  ticket ${c.emission}/${c.block}/${c.number} (€${c.prize_eur}): paid by ${c.first_device_id} at ${first}, then offline by ${c.device_id} at ${paid}`,
    healthCols: [
      'device',
      'last seen',
      'state',
      'version',
      'slot',
      'notice',
      'ledger',
      'outbox',
      'boot',
      'up',
      'errors',
    ],
    notEnrolled: 'heard, not enrolled',
    stale: (days: number) => `STALE (> ${days} d)`,
    uptime: (s: number) =>
      s >= 86400 ? `${Math.floor(s / 86400)} d` : s >= 3600 ? `${Math.floor(s / 3600)} h` : `${Math.floor(s / 60)} min`,
    campaignCreated: (name: string, version: string, n: number, phases: string) =>
      `campaign ${name}: image ${version} to ${n} device(s), phases ${phases}; running`,
    campaignState: (name: string, state: string) => `campaign ${name}: ${state}`,
    campaignNone: 'no campaign',
    campaignHead: (c: {
      name: string;
      version: string;
      state: string;
      phase: number;
      phases: string;
      failures: number;
      max_failures: number;
      device_deadline_ms?: number;
      retries?: number;
    }) =>
      `campaign ${c.name}: image ${c.version}, ${c.state}, phase ${c.phase} of ${String(c.phases).split(',').length} (${c.phases}), ${c.failures} failure(s) of ${c.max_failures} allowed` +
      (c.device_deadline_ms ? `, a device's deadline ${c.device_deadline_ms / 3_600_000} h` : '') +
      (c.retries ? `, ${c.retries} download retr${c.retries > 1 ? 'ies' : 'y'}` : ''),
    campaignPhase: (p: number, n: number, states: string) => `  phase ${p}: ${n} device(s): ${states}`,
    campaignDevice: (id: string, state: string, detail: string | null) =>
      `    ${id}  ${state}${detail ? '  ' + detail : ''}`,
    campaignUsage:
      'campaign create IMAGE --name N [--group G] [--phases 1,10,100] [--max-failures K] [--device-deadline HOURS] [--retries N]; campaign status [NAME]; campaign pause|resume|abort NAME',
    campaignError: (detail: string) => `campaign: ${detail}`,
    campaignFile: (file: string, why: string) => `cannot read the image ${file}: ${why}`,
    imagesDir: (dir: string) => `--images ${dir}: not a folder`,
    groupSet: (id: string, group: string) => `device ${id} in group ${group}`,
    stopping: 'registry stopping',
    testKeys:
      'WARNING: the published TEST ticket key is trusted (anyone can sign tickets with it): --key and --production for real tickets',
    ticketKeys: (n: number) => `trusted ticket key(s): ${n}`,
    bothDb: '--db and --postgres exclude each other',
    noDb: (dir: string) => `no registry database in ${dir}: \`saphir registry serve --db ${dir}\` creates it`,
    postgresUrl: '--postgres takes a postgres://… URL',
    since: (v: string) => `--since takes a date YYYY-MM-DD that exists, not '${v}'`,
    deviceId: (id: string) => `device id '${id}': 1 to 16 printable ASCII characters, no space`,
    pubkey: (v: string) => `PUBKEY '${v}': 64 hex digits (an Ed25519 public key), or a file holding them`,
    already: (id: string) => `device ${id} is already enrolled`,
    keyOnlyServe:
      '--key, --registry-key, --production, --rate-limit and --reservation-minutes are options of registry serve',
    devKeyEnrol: (id: string) =>
      `${id}: this is the published DEVELOPMENT device key (anyone can sign with it): never enrolled. ` +
      `Give the device its own key (a production device makes one; saphir sim prints it, or --device-key FILE). ` +
      `A development registry accepts the published key without enrolment while no device is enrolled.`,
    productionNeedsKey:
      '--production needs the production ticket key: --key HEX|FILE (a production registry never trusts the published test key)',
    productionNeedsRegistryKey:
      '--production needs the central registry’s own key: --registry-key HEX|FILE (its published development key would let anyone sign its answers)',
    testKeyInProduction: (where: string) =>
      `${where}: the published TEST ticket key, never trusted with --production (anyone can sign with it)`,
    dbIsFile: (dir: string) => `--db ${dir} is a file: give the registry's database directory`,
    notDb: (dir: string) =>
      `--db ${dir} is not a registry database (a directory holding other files): give the registry's directory, or a new or empty one`,
    cannotOpen: (dir: string, why: string) => `cannot open the database ${dir}: ${why}`,
    locked: (dir: string, pid: number | string, file: string) =>
      `the database ${dir} is in use by process ${pid} (most likely 'saphir registry serve'): PGlite is one process's database. ` +
      `Stop that process first (devices add/revoke and report work on it while it is stopped), or use PostgreSQL (--postgres URL) to share a database between processes. ` +
      `If process ${pid} is not a saphir registry, delete ${file}.`,
  },
  explore: {
    indexOne: '--index replays one schedule: use it with --explore 1',
    devicesFleet: '--devices goes with --fleet',
    attackerFleet: '--attacker goes with --fleet',
    faults: (g: string, known: string) => `--faults: unknown fault group '${g}' (known: ${known})`,
    faultsFleet: '--faults is for single-device schedules, not --fleet',
    fleetEngine: '--variant, --quickjs-every and --ed25519 are for single-device schedules: the fleet runs QuickJS',
    progress: (done: number, n: number, perS: number, violations: number) =>
      `${done}/${n} schedules, ${perS.toFixed(1)}/s, ${violations} violation(s)`,
    start: (n: number, seed: string, threads: number, fleet: boolean) =>
      `Exploring ${n}${fleet ? ' fleet' : ''} schedule(s), seed ${seed}, on ${threads === 1 ? 'one thread' : `${threads} threads`}.`,
    interrupted: (done: number, n: number, seed: string, violations: number) =>
      `Interrupted after ${done} of ${n} schedule(s) (seed ${seed}): ${violations} violation(s).`,
    summary: (
      schedules: number,
      seed: string,
      operations: number,
      steps: number,
      seconds: number,
      perS: number,
      stepsPerS: number,
      violations: number,
    ) =>
      `${schedules} schedules (seed ${seed}), ${operations} operations, ${steps} steps in ${seconds.toFixed(1)} s: ` +
      `${perS.toFixed(1)} schedules/s, ${stepsPerS.toFixed(0)} steps/s. ${violations} violation(s).`,
    failure: 'invariant',
    variant: '--variant of --explore must be v8, quickjs, quickjs-ng or xs',
    ed25519: '--ed25519 of --explore must be host or firmware',
    engines: (e: Record<string, number>, ed25519?: 'host' | 'firmware') =>
      `Engines: ${Object.entries(e)
        .map(([k, n]) => `${n} on ${k}${k === 'v8' && ed25519 === 'host' ? ' (Ed25519 by the host)' : ''}`)
        .join(', ')}.`,
    updates: (u: Record<string, number>) =>
      `Updates: ${u.service ?? 0} over the service port (${u['service-cut'] ?? 0} cut, ${u['service-resumed'] ?? 0} resumed from the chunks held, ${u['service-installed'] ?? 0} installed), ${u.direct ?? 0} installed at once.`,
    written: 'scenario',
    replay: 'replay',
    reproduces: (ok: boolean): string =>
      ok ? 'the scenario reproduces the defect' : 'a scenario cannot check this invariant',
    fleet: (online: number, offline: number, unknown: number, phantomHolds: number) =>
      `Payments: ${online} online, ${offline} offline, ${unknown} cut before PAYÉ; ` +
      `${phantomHolds} ticket(s) held by the registry for a device that did not pay it (answer lost).`,
    fleetNotices: (k: Record<string, number>, n: { adopted: number; refused: number; expired: number }) =>
      `Notices: ${k.notice ?? 0} published by the operator, ${k['notice-foreign'] ?? 0} signed by a foreign key, ${k['notice-older'] ?? 0} older pushed over a service port; ` +
      `${n.adopted} taken by a device, ${n.refused} refusal(s) shown, ${n.expired} TICKET EXPIRÉ verdict(s).`,
    fleetErased: (n: number) =>
      `${n} double payment(s) by one device id that a rollback hid (one payment's only record erased before the registry heard it).`,
  },
  help: {
    check: `usage: saphir check [--json] [--key HEX|FILE] [--lang fr|en] [CODE… | -]
Checks SAPHIR ticket codes given as arguments, or one per line on standard input ('-' or none).
Spaces and tabs around a code are ignored; quote a code that contains spaces.
  --json          one JSON object per code (snake_case keys)
  --key HEX|FILE  trust this public key (64 hex digits, for any key id) or key file
                  ({"key_id": 1, "public_hex": "…"}) instead of the test key
  --lang fr|en    language of the messages (default fr, or en when LANG is en*)
Exit 0 when every code is genuine, 1 when any is not, 2 on a usage error (no code at all included).`,
    gen: (
      seed: string,
    ) => `usage: saphir gen --emission E --block B (--full | --from N --count K) [--seed S] [--key FILE]
                  [--jobs J] [--quiet] [--lang fr|en]
Prints signed SPH1 ticket codes of one block, one per line, in ticket-number order.
  --full          the whole block: 3 000 000 tickets whose prizes are exactly those of Article 3
  --from/--count  tickets N … N+K-1 only (the same lines as in the full block)
  --seed S        the secret the prizes and zones derive from (default '${seed}'); same seed, same output
  --key FILE      signing key, JSON {"key_id": 1, "seed_hex": "<32-byte Ed25519 private seed, hex>"};
                  without it the published test key (key id 0) signs, with a warning
  --jobs J        worker threads (default: one per core)
  --quiet         no progress (otherwise a line every 10 % on stderr when it is not a terminal)
Exit 0, 1 on an error (a key file that cannot be read…), 2 on a usage error.`,
    audit: `usage: saphir audit [FILE | -] [--json] [--lang fr|en] [--key HEX|FILE] [--jobs J]
Verifies every code of FILE (or standard input), one per line, signature included, and per
(emission, block) tallies the prizes against Article 3; reports invalid codes, duplicate and missing
ticket numbers. Exit 0 only when every block is complete, genuine and equal to Article 3; 1 otherwise;
2 on a usage error.
  --key HEX|FILE  trust this key instead of the test key: 64 hex digits (for any key id), or
                  JSON {"key_id": 1, "public_hex": "…"} (or "seed_hex", as for saphir gen)
  --jobs J        worker threads (default: one per core)
  --quiet         no progress (otherwise, for a FILE, a line every 10 % on stderr when it is not a terminal)`,
    decode: `usage: saphir decode --source hid-keyboard|hid-pos|serial|image [options] FILE…
Prints each code a scanner capture holds, one a line, in order.
  --source S        hid-keyboard, hid-pos: one report a line as hex bytes ("02 00 16 00 00 00 00 00"),
                    blank lines and # comments ignored; serial: the raw bytes; image: a PNG, or raw
                    pixels with --width/--height/--format
  --layout L        keyboard layout of hid-keyboard captures: us, fr or auto (default auto)
  --width N --height N --format y8|rgba   raw image frames
  --lang fr|en      language of the messages (default fr)
Exit 0 when every file gave at least one code, 1 otherwise, 2 on a usage error.`,
    scan: `usage: saphir scan (--hid VID:PID|PATH [--mode keyboard|pos] [--layout us|fr|auto]
                   | --serial PATH [--baud N] [--ack]) [--json] [--lang fr|en] [--count N]
Reads the scanner attached to this computer and prints the verdict of every ticket scanned, until
Ctrl+C (or N codes with --count).
  --hid VID:PID|PATH  a USB HID scanner (hex ids, e.g. 0c2e:0b61, or a /dev/hidraw path)
  --mode keyboard|pos its keyboard-wedge interface (default) or its HID POS one
  --layout us|fr|auto keyboard layout the scanner types with (default auto)
  --serial PATH       a serial or USB virtual COM scanner; --baud N (default 9600); --ack answers ACK/NAK
Exit 0 when every ticket scanned was genuine, 1 when one was not or the scanner cannot be opened, 2 on a
usage error.`,
    image: `usage: saphir image inspect [--key HEX|FILE] [--json] [--lang fr|en] FILE
Prints a signed firmware image's header and checks its SHA-256 and Ed25519 signature, by default
against the published development key (--key: another public key, 64 hex digits or a key file).
Exit 0 when the image is intact and signed by that key, 1 when not, 2 on a usage error.`,
    flash: `usage: saphir flash --port PATH [--port PATH…] [--ports GLOB] [--baud N] [--key HEX|FILE] [--force]
                    [--dry-run] [--no-reboot] [--quiet] [--tech-key HEX|FILE] [--lang fr|en] IMAGE
Writes a signed firmware image to a device over its service serial port. The file is checked first
(format, SHA-256, signature by the firmware key: --key, default the published development key); then
the device and the image are shown side by side and a mismatch is refused before writing. An
interrupted transfer resumes; the hash the device reports is checked; the device restarts on the new
image (test mode until it confirms). --force reinstalls the image the device already runs.
--dry-run stops after the comparison. Several --port (or --ports '/dev/ttyUSB*') flash the devices in
parallel, one progress line each and a summary table at the end; one failing never stops the others.
Off a terminal, progress is a plain line every 10 % (--quiet: none). --tech-key: the technician key
that opens the device's service session (JSON {"seed_hex": …} or 64 hex digits; default: the
published development key, with a warning).
Exit 0 on success, 1 on a refusal or an error (on any device), 2 on a usage error.`,
    device: `usage: saphir device info --port PATH [--port PATH…] [--baud N] [--json] [--tech-key HEX|FILE] [--lang fr|en]
Asks a device over its service port who it is and what it runs (board, device id, both image slots,
security counter, an interrupted transfer), which firmware key it trusts (SHA-256), whether it is a
production device, and whether the technician key (--tech-key; default: the published development
key, with a warning) opens its service session. Several --port: each in turn, under its port's name
(--json: one object a line). Exit 0, 1 on an error (on any port), 2 on a usage error.`,
    ledger: `usage: saphir ledger export --port PATH [--baud N] [--format csv|json] [--quiet] [--tech-key HEX|FILE]
                          [--to URL | --journal | --report [x|z]] [--lang fr|en]
Reads the paid-ticket ledger of a device over its service port and writes it to standard output:
CSV (default; one payment a line) or JSON (an array). Progress goes to stderr every 10 % when it is
not a terminal (--quiet: none). --tech-key: the technician key that opens the device's service session
(default: the published development key, with a warning). --to URL: instead, carry the device's
offline payments (signed by the device) to the fleet registry at URL; the device marks them sent.
--journal: the device's check journal instead (every verdict shown, paid or not). --report (or
--report x): the figures of the period since the device's last Z report, as its X report gives them;
--report z: those of the period the last Z closed, as that Z report printed them.
Exit 0, 1 on an error, 2 on a usage error.`,
    sim: `usage: saphir sim [options]
  --scenario FILE…        play scenario files (hw-sim/scenarios/*.yaml); exit 1 if any fails
  --quiet                 with --scenario: print failures and the summary only
  --screenshots DIR       where scenario screenshots go (default: beside each scenario)
  --variant quickjs|quickjs-ng|xs   the engine (default quickjs; with --explore also v8, its default)
  --flash FILE            keep the simulated NOR flash in FILE between runs (scenarios too)
  --bridge-hid VID:PID|PATH [--hid-mode keyboard|pos]   a real HID scanner feeds the simulated device
  --bridge-serial PATH [--baud N]                      a real serial scanner feeds the simulated device
  --pty [PATH] [--baud N] expose the device's service port as a pseudo-terminal (for saphir flash)
  --web [--port N] [--host H] [--open]   the simulator in a web page, on a local HTTP server (default 127.0.0.1)
  --explore N [--seed S] [--index I] [--jobs J] [--json] [--out DIR] [--faults GROUPS]
                          the fault explorer: N random schedules checked by a model (docs/explorer.md); exit 1 on a violation.
                          It runs the bundle on v8 with one schedule in 32 on QuickJS (--quickjs-every K, 0: none),
                          and replays every violation on QuickJS; --variant quickjs runs them all on QuickJS.
                          On v8 the host does the Ed25519 curve work (--ed25519 firmware: the firmware's own)
  --explore N --fleet [--devices K] [--attacker]   fleet schedules: 2–4 devices (K) sharing one embedded
                          registry, network cuts, registry restarts; the fleet invariants (docs/explorer.md);
                          --attacker: answers rewritten or forged, devices rolled back, clones
  --firmware-key HEX|FILE provision the device with this firmware public key (a production device
                          unless it is the development key); default: the development keys
  --tech-key HEX|FILE     provision the device with this technician public key (service port access)
  --provision IMAGE       factory programming: the signed IMAGE into slot A of a blank chip, checked with
                          the provisioned keys (with --flash FILE the chip is kept; run again, it is left as it is)
  --device-key HEX|FILE   provision the device's registry key (its private seed, seed_hex); default: a
                          fresh key on a production device, the published development key otherwise
  --device-id ID          the device's id (interactive, --pty, --web); with --registry, default one of
                          this run (SIM- and 4 random hex digits), so two simulators are two devices
  --department DEP        the department the device stands in (interactive, --pty, --web): that
                          department's holidays in the operator's notice shift the end of the claim period
  --registry-pub HEX|FILE provision the device with the registry's public key: it pays on no answer
                          that key did not sign; default: the published development registry key
  --operator-key HEX|FILE provision the device with the operator's public key: notices it did not sign
                          are refused; default: the published development operator key
  --registry URL|embedded the fleet registry the device asks before paying (embedded: PGlite, in-process);
                          fleet scenarios (devices:, network:, expect-registry:) start an embedded one
                          with --web: the page's device, through the page's server
  --lang fr|en            language of this tool's messages (default fr)
Without --scenario: interactive. Type "aide" / "help" for the commands.
Exit 0, 1 when a scenario failed or on an error, 2 on a usage error, 130 when Ctrl-C stops --explore.`,
    demo: `usage: saphir demo [--lang fr|en] [--scenario FILE] [--quiet]
Boots the firmware in the simulator and plays hw-sim/scenarios/demo.yaml (or FILE), drawing the
display as it changes. --quiet prints the summary only. Exit 0 when every step passed, 1 when one
failed, 2 on a usage error.`,
    ports: `usage: saphir ports [--json] [--port PATH…] [--baud N] [--timeout MS] [--lang fr|en]
Lists the serial ports of this computer (read from /sys/class/tty and /dev/serial/by-id): by-id path,
USB VID:PID, serial number, and, when a SAPHIR device answers IDENTIFY within --timeout (default
300 ms) at --baud (default 115200), its device id and running version. --port adds a port the system
does not list (a pseudo-terminal). Exit 0 (also when there are none), 2 on a usage error.`,
    notice: `usage: saphir notice create --version N [--from FILE] [--emission NUM:NAME:ON_SALE[:CLOSES]]… [--close NUM:DATE]…
                            [--payout-limit EUR] [--offline-limit EUR] [--id-threshold EUR] [--holiday [DEPT:]DATE]… [-o FILE]
       saphir notice sign FILE [--operator-key HEX|FILE] [-o FILE]
       saphir notice inspect FILE [--operator-key HEX|FILE] [--department DEPT] [--json]
       saphir notice push FILE --port PATH [--baud N] [--tech-key FILE] [--no-reboot]
The operator's notices (docs/operations.md): the emissions on sale and closed, the payout, offline and ID
limits, extra holidays (overseas departments). A device takes a signed notice of a higher version than its
own, from its registry's sync or over its service port, and refuses an older, unsigned or foreign-signed one.
create: a notice, not signed (dates YYYY-MM-DD; an emission without CLOSES is on sale, with no claim
  deadline until its closing notice; --from FILE starts from a notice, version + 1; --close NUM:DATE
  closes one of its emissions; --holiday DATE: a holiday for every device, --holiday 974:DATE: for the
  devices configured with department 974 only). Defaults: payout 300, offline 150, ID from 5000 €.
  A device pays no ticket of an emission before its ON_SALE day (00:00 Paris time).
sign: signs with the operator's private seed (64 hex digits or {"seed_hex": …}); without it, the published
  development operator key (said; production devices refuse it).
inspect: the notice, each emission's claim deadline (30 days after closing, moved past Sundays and
  holidays; --department DEPT: with that department's holidays) and whether the signature verifies with --operator-key (a public key; default the development
  one). Exit 1 when it does not.
push: stores it on a device over its service port (a technician session, --tech-key), then restarts the
  device so that it applies (--no-reboot: at its next start).
registry serve --notice FILE, or registry notice publish FILE, gives it to every device at its next sync.
Exit 0, 1 on an error or a refusal, 2 on a usage error.`,
    registry: `usage: saphir registry serve [--db DIR | --postgres URL] [--port N] [--host H] [--key HEX|FILE]… [--registry-key HEX|FILE] [--production] [--rate-limit N] [--reservation-minutes N] [--notice FILE] [--images DIR]
       saphir registry devices add ID PUBKEY [--db DIR | --postgres URL]
       saphir registry devices add ID PUBKEY --group G | devices group ID G
       saphir registry devices list [--json] [--stale-days N] [--db DIR | --postgres URL]
       saphir registry campaign create IMAGE --name N [--group G] [--phases 1,10,100] [--max-failures K] [--device-deadline HOURS] [--retries N] [--images DIR]
       saphir registry campaign status [NAME] [--json] | campaign pause|resume|abort NAME
       saphir registry devices revoke ID [--db DIR | --postgres URL]
       saphir registry notice publish FILE | show [--json] [--db DIR | --postgres URL]
       saphir registry report [--json] [--since YYYY-MM-DD] [--stale-days N] [--db DIR | --postgres URL]
The fleet's paid-ticket registry: the first device to claim a ticket gets it, every later claim is told
who paid it and when; offline payments reported later by two devices are conflicts (report).
Storage: PGlite in DIR (default .saphir-registry/, nothing to install) or PostgreSQL at URL; serve and
devices add create DIR, the other subcommands refuse a DIR that does not exist.
Out of the box (no device enrolled) the registry is a development fleet that accepts the published
development device key; enrolling the first device, or --production, ends that.
--key HEX|FILE (repeatable, as for check): the ticket public keys the registry trusts, instead of the
published test key; --production never trusts the test key and needs --key and --registry-key.
The published development device key is never enrolled (devices add refuses it) and --production
refuses it always. --rate-limit N: requests a second per device (bursts of 4N; default 5, 0: none),
answered 429 with Retry-After beyond.
--registry-key HEX|FILE: the registry's own Ed25519 seed (64 hex digits, or a file {"seed_hex": …}); it
signs every answer, and devices are provisioned with its public key. Without it, the published
development registry key (said on start).
Claims are two-phase: a claim reserves the ticket, the device's sync after paying confirms it; a device
asking again for a ticket it confirmed is told DÉJÀ PAYÉ and listed under regrants in the report.
--reservation-minutes N (default 30, 1–10080): a claim not confirmed within N minutes is granted to
another device that claims it (its first holder may have died before confirming); listed as released in
the report, and the first holder's late confirmation is a conflict.
PGlite is one process's database: stop serve before devices add/revoke or report on its DIR (or use
PostgreSQL, which several processes share).
devices list shows each device's last health (firmware, slot, notice, ledger, outbox, boot reason,
uptime, errors: sent with every sync) and STALE for one not heard for --stale-days N days (default 7).
campaign create rolls IMAGE out in phases (cumulative percentages, default 1,10,100) to the enrolled
devices (of --group G), or in a development fleet to every device heard: each phase starts when the
previous one is done; --max-failures K failures (default 1) stop it. --device-deadline H: a device of
a running phase that has not reported within H hours (of its phase's start, or its last step) fails;
--retries N: a failed download is ordered again up to N times first; --images DIR: the image is kept
as the file DIR/HASH.img, not in the database, and registry serve --images DIR reads its chunks from
there (4 KiB at a time). Status, pause, resume, abort.
Exit 0, 1 on an error, 2 on a usage error.`,
  },
};

export type Messages = typeof en;
