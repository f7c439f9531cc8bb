// End to end through a real pseudo-terminal (socat): the simulated device on one end, `saphir flash`
// (child process) or the flash client on the other.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { FACTORY, flashDevice, dataSnapshot, onPty, withPty } from './harness.ts';
import { saphirAsync, saphirIn } from '../cli/run-cli.ts';
import { bootChip } from '../../hw-sim/sim.ts';
import { image, hashOf, tempFiles } from './images.ts';
import { ServiceClient, FlashError } from '../../host/flash-client.ts';
import { parseImage } from '../../src/image/format.ts';
import { seeded } from '../../hw-sim/nor-flash.ts';
import { requireTool, requireTools } from '../helpers.ts';

const withSocat = requireTool('socat');
const withSocatAndScript = requireTools(['socat', 'script']);
import { LAYOUT } from '../../rom/layout.ts';
import { readJournal } from '../../rom/update.ts';

const BAUD = 921600;
const { dir, file } = tempFiles('saphir-flash-test-');
const NEW = image({ version: '1.1.0', counter: 2, size: 60000, salt: 2 });

withSocat(
  'saphir flash: good image written, test boot, confirmed, survives a reset; info and ledger export',
  async () => {
    const dev = await flashDevice();
    const data = dataSnapshot(dev);
    await withPty(dev, BAUD, async (pty) => {
      // The real binary, in its own process.
      const r = await saphirAsync(['flash', '--port', pty.path, '--baud', String(BAUD), file('new.img', NEW)]);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, /Appareil\s+Image/);
      assert.match(r.stdout, /1\.0\.0.*1\.1\.0/);
      assert.match(r.stdout, /écrite dans l’emplacement B et vérifiée/);
      assert.match(r.stdout, /Redémarré sur 1\.1\.0, confirmée/);
      assert.is(dev.booted?.imageHash, hashOf(NEW));
      await dev.reboot();
      assert.is(dev.booted?.version, '1.1.0');
      assert.not.ok(dev.booted?.pendingConfirm);
      assert.ok(dataSnapshot(dev).equals(data), 'ledger and config untouched');

      const again = await onPty(pty, BAUD, 'flash', '--lang', 'en', file('new.img', NEW));
      assert.is(again.code, 0);
      assert.match(again.stdout, /already runs/);

      const info = await onPty(pty, BAUD, 'device info', '--lang', 'en');
      assert.is(info.code, 0, info.stderr);
      assert.match(info.stdout, /SPH-000042/);
      assert.match(info.stdout, /Slot B\s+1\.1\.0, counter 2, \d+ bytes, confirmed/);
      const infoJson = await onPty(pty, BAUD, 'device info', '--json');
      const id = JSON.parse(infoJson.stdout);
      assert.is(id.device_id, 'SPH-000042');
      assert.is(id.security_counter, 2);
      assert.ok(!/"[a-z]+[A-Z]\w*"\s*:/.test(infoJson.stdout), `snake_case keys only: ${infoJson.stdout}`);
      assert.match(info.stdout, /Security counter\s+2/);

      const csv = await onPty(pty, BAUD, 'ledger export');
      assert.is(csv.code, 0, csv.stderr);
      const lines = csv.stdout.trim().split('\n');
      assert.is(lines[0], 'emission,block,number,prize_eur,paid_at,device_id');
      assert.is(lines.length, 6);
      assert.is(lines[1], '1,7,1000,20,2026-11-01T10:00:00.000Z,SPH-000042');
      const json = await onPty(pty, BAUD, 'ledger export', '--format', 'json');
      assert.is(JSON.parse(json.stdout).length, 5);
    });
  },
);

withSocatAndScript('saphir flash on a terminal: a progress bar with the rate and the time left', async () => {
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const r = await saphirAsync(
      ['flash', '--port', pty.path, '--baud', String(BAUD), '--lang', 'en', file('tty.img', NEW)],
      { tty: true },
    );
    assert.is(r.code, 0, r.stdout);
    assert.match(r.stdout, /\] 100 %\s+[\d.]+ KB\/s\s+left /);
    assert.is(dev.booted?.imageHash, hashOf(NEW));
  });
});

withSocat('refusals leave the running image, boot state and ledger unchanged (CLI and device checks)', async () => {
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const before = Buffer.from(dev.chip.bytes);
    const board = await onPty(
      pty,
      BAUD,
      'flash',
      file('board.img', image({ version: '2.0.0', counter: 2, board: 0x1234 })),
    );
    assert.is(board.code, 1);
    assert.match(board.stderr, /autre modèle/);
    assert.match(board.stdout, /Rien n’a été écrit/);
    const old = await onPty(pty, BAUD, 'flash', file('old.img', image({ version: '0.9.0', counter: 0 })));
    assert.is(old.code, 1);
    assert.match(old.stderr, /anti-retour/);
    const sig = await onPty(
      pty,
      BAUD,
      'flash',
      file('sig.img', image({ version: '2.0.0', counter: 2, seed: new Uint8Array(32).fill(3) })),
    );
    assert.is(sig.code, 1);
    assert.match(sig.stderr, /signature refusée/);
    const bad = NEW.slice();
    bad[4000] ^= 0xff;
    const corrupt = await onPty(pty, BAUD, 'flash', file('corrupt.img', bad));
    assert.is(corrupt.code, 1);
    assert.match(corrupt.stderr, /corrompue/);
    const trunc = await onPty(pty, BAUD, 'flash', file('trunc.img', NEW.subarray(0, 30000)));
    assert.is(trunc.code, 1);
    assert.match(trunc.stderr, /tronquée/);
    const dry = await onPty(pty, BAUD, 'flash', '--dry-run', file('new.img', NEW));
    assert.is(dry.code, 0);
    assert.match(dry.stdout, /Essai à blanc/);
    assert.ok(Buffer.from(dev.chip.bytes).equals(before), 'host and BEGIN refusals: chip byte for byte as it was');

    // The device's own checks, past a host that does not check: corrupted bundle, truncated manifest.
    // The corrupted bundle streams into the inactive slot B and is refused by FINISH's check in place.
    const c = await ServiceClient.open(pty.path, { baud: BAUD });
    try {
      await c.flash(bad).then(
        () => assert.unreachable('corrupted image accepted'),
        (e: FlashError) => assert.is(e.detail.reason, 'hash'),
      );
      const fake = image({ version: '2.0.0', counter: 2, size: 5000 });
      const p = parseImage(fake);
      if ('error' in p) throw new Error(p.error);
      const truncated = new Uint8Array(fake.subarray(0, fake.length - 20));
      await c.begin(truncated).then(
        () => assert.unreachable('truncated image accepted'),
        (e: FlashError) => assert.is(e.detail.reason, 'malformed'),
      );
      await c.finish().then(
        () => assert.unreachable('finish without session'),
        (e: FlashError) => assert.is(e.detail.reason, 'no-session'),
      );
    } finally {
      await c.close();
    }
    const kept = (b: Uint8Array) =>
      Buffer.concat([
        b.subarray(LAYOUT.slotA.offset, LAYOUT.slotA.offset + LAYOUT.slotA.size),
        b.subarray(LAYOUT.bootState.offset, LAYOUT.ledger.offset + LAYOUT.ledger.size),
      ]);
    assert.ok(
      kept(dev.chip.bytes).equals(kept(before)),
      'slot A, boot state, config and ledger byte for byte as they were',
    );
    assert.is(readJournal(bootChip(dev.chip)), null, 'the refused transfer is forgotten');
    await dev.reboot();
    assert.is(dev.booted?.imageHash, hashOf(FACTORY));
  });
});

withSocat('link cut at random points: re-running resumes and completes', async () => {
  // Larger than the window (6 × 4 KiB in flight), so a cut leaves bytes missing.
  const BIG = image({ version: '1.2.0', counter: 2, size: 150000, salt: 5 });
  const dev = await flashDevice();
  const data = dataSnapshot(dev);
  await withPty(dev, BAUD, async (pty) => {
    const rnd = seeded(6);
    let resumed = 0;
    for (let round = 0; round < 3; round++) {
      // Cut points spread over the transfer, each later than the last (the device keeps what it has).
      const cutAt = Math.floor(BIG.length * (0.1 + 0.15 * round + 0.1 * rnd()));
      const c = await ServiceClient.open(pty.path, { baud: BAUD });
      let cutting: Promise<void> | null = null;
      const err = await c
        .flash(BIG, {
          onProgress: (p) => {
            if (!cutting && p.done >= cutAt) cutting = pty.cut();
          },
        })
        .then(
          () => null,
          (e: unknown) => e,
        );
      await cutting;
      await c.close();
      if (cutting) {
        assert.instance(err, FlashError);
        assert.ok(['link-lost', 'no-answer'].includes((err as FlashError).code), String(err));
      }
      await pty.reconnect();
      const again = await ServiceClient.open(pty.path, { baud: BAUD });
      const id = await again.identify();
      await again.close();
      assert.ok(id.session, 'the device kept the interrupted session');
      const held = id.session!.received.reduce((n, [a, b]) => n + b - a, 0);
      assert.ok(held >= resumed, 'never less than before');
      assert.ok(held < BIG.length);
      resumed = held;
    }
    assert.ok(resumed > BIG.length / 4);
    const r = await onPty(pty, BAUD, 'flash', '--lang', 'en', file('big.img', BIG));
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /Resumed: the device already held \d+ bytes/);
    assert.is(dev.booted?.version, '1.2.0');
    assert.ok(dataSnapshot(dev).equals(data));
  });
});

withSocat('line lost between FINISH and the restart: the re-run only restarts the device', async () => {
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const c = await ServiceClient.open(pty.path, { baud: BAUD });
    await c.flash(NEW);
    await c.close();
    const r = await onPty(pty, BAUD, 'flash', '--lang', 'en', file('new.img', NEW));
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /already written to slot B, waiting for a restart/);
    assert.match(r.stdout, /Restarted on 1\.1\.0, confirmed/);
  });
});

withSocat('an image that does not confirm is reverted at the next reset', async () => {
  const dev = await flashDevice();
  dev.firmwareModel!.selfTestPasses = false;
  await withPty(dev, BAUD, async (pty) => {
    const r = await onPty(pty, BAUD, 'flash', '--lang', 'en', file('new.img', NEW));
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /test mode/);
    assert.ok(dev.booted?.pendingConfirm);
    await dev.reboot();
    assert.is(dev.booted?.imageHash, hashOf(FACTORY));
    assert.not.ok(dev.booted?.pendingConfirm);
  });
});

withSocat('clear errors: no such port, port busy, no answer with the baud rate', async () => {
  const none = await saphirIn(['device', 'info', '--port', join(dir, 'nope')]);
  assert.is(none.code, 1);
  assert.match(none.stderr, /port série introuvable/);
  const dev = await flashDevice();
  await withPty(dev, BAUD, async (pty) => {
    const holder = await ServiceClient.open(pty.path, { baud: BAUD });
    const busy = await saphirIn(['flash', '--port', pty.path, '--lang', 'en', file('new.img', NEW)]);
    await holder.close();
    assert.is(busy.code, 1);
    assert.match(busy.stderr, /serial port busy/);
    pty.port.close(); // the device stops answering
    const mute = await saphirAsync(['device', 'info', '--port', pty.path, '--baud', '460800']);
    assert.is(mute.code, 1);
    assert.match(mute.stderr, /pas de réponse de l'appareil à 460800 bauds/);
  });
});

let t0 = 0;
test.before.each(() => {
  t0 = performance.now();
});
test.after.each(() => {
  if (process.env.FLASH_TIMING) process.stderr.write(`  ${Math.round(performance.now() - t0)} ms\n`);
});
test.after(() => rmSync(dir, { recursive: true, force: true }));
test.run();
