// Update campaigns (docs/registry.md, "Update campaigns"): an image rolled out to a fleet in phases. A
// phase's devices get the order in the answer to their sync; each downloads the image in chunks into its
// inactive slot, test-boots it and confirms (or its bootloader reverts); the device's next syncs say
// which. The next phase starts when every device of the current one is done and the failures stay under
// `max_failures`; reaching it stops the campaign. Every transition is a conditional UPDATE, so several
// servers on one database agree.
import { HEADER_SIZE, parseImage } from '../../src/image/format.ts';
import { toHex } from '../../src/hex.ts';
import { sha256 } from '@noble/hashes/sha2.js';
import { IMAGE_CHUNK, type CampaignSpec, type Health, type UpdateOffer } from '../../src/registry/protocol.ts';
import type { Query } from './db.ts';
import { existsSync } from 'node:fs';
import { writeWhole } from '../../tools/write-whole.ts';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

export type CampaignState = 'running' | 'paused' | 'stopped' | 'aborted' | 'done';
/** pending → offered (the order went out) → installed (the device finished the download) → confirmed | failed. */
export type DeviceState = 'pending' | 'offered' | 'installed' | 'confirmed' | 'failed';

export const CAMPAIGN_NAME = /^[\x21-\x7e]{1,40}$/;

export class CampaignError extends Error {
  constructor(
    readonly code: 'exists' | 'unknown' | 'state' | 'image' | 'no-devices' | 'phases',
    detail: string,
  ) {
    super(detail);
  }
}

export interface CampaignRow {
  name: string;
  image_hash: string;
  group_name: string | null;
  phases: string;
  max_failures: number;
  state: CampaignState;
  phase: number;
  created_at: number;
  updated_at: number;
  /** A device of a running phase silent on the image this long (ms) fails; 0: no deadline. */
  device_deadline_ms: number;
  /** A failed download is ordered again up to this many times before the device counts as failed. */
  retries: number;
  phase_at: number;
}

export interface CampaignStatus extends CampaignRow {
  version: string;
  security_counter: number;
  /** Per phase (1-based order): its devices by state. */
  per_phase: { phase: number; devices: number; states: Partial<Record<DeviceState, number>> }[];
  failures: number;
  devices: { device_id: string; phase: number; state: DeviceState; detail: string | null; attempts: number }[];
}

/** `--phases 1,10,100`: cumulative percentages, increasing, the last 100. */
export function parsePhases(text: string): number[] {
  const ps = text.split(',').map((x) => Number(x.trim()));
  if (
    ps.length < 1 ||
    ps.length > 10 ||
    ps.some((p, i) => !Number.isInteger(p) || p < 1 || p > 100 || (i > 0 && p <= ps[i - 1])) ||
    ps[ps.length - 1] !== 100
  )
    throw new CampaignError('phases', `phases '${text}': increasing percentages from 1 to 100, ending at 100`);
  return ps;
}

/** The phase (1-based) of each of `n` devices: phase k holds the first ceil(p_k % of n), at least one more than phase k-1. */
export function phaseOf(n: number, phases: number[]): number[] {
  const out: number[] = [];
  let upTo = 0;
  phases.forEach((p, k) => {
    const end = Math.min(n, Math.max(upTo + 1, Math.ceil((p * n) / 100)));
    for (; upTo < end; upTo++) out.push(k + 1);
  });
  return out;
}

/** An image kept in a folder (`--images DIR`) is the file HASH.img there. */
const imageFile = (hash: string) => `${hash}.img`;

/**
 * Checks an image file and stores it: its manifest (header and TLV, hex), and its 4 KiB chunks as rows,
 * or, with `imagesDir`, the image as the file HASH.img in that folder (written whole before the row).
 */
export async function storeImage(
  q: Query,
  bytes: Uint8Array,
  now: number,
  imagesDir?: string,
): Promise<{ hash: string; version: string }> {
  const img = parseImage(bytes);
  if ('error' in img) throw new CampaignError('image', `not a firmware image: ${img.error}`);
  const hash = toHex(img.hash);
  if (toHex(sha256(bytes.subarray(0, img.signedLength))) !== hash)
    throw new CampaignError('image', 'the image does not hash to its SHA-256 record (damaged)');
  // What a device's ROM checks before the first chunk: the header, then the TLV area (signature).
  const manifest = new Uint8Array(HEADER_SIZE + bytes.length - img.signedLength);
  manifest.set(bytes.subarray(0, HEADER_SIZE), 0);
  manifest.set(bytes.subarray(img.signedLength), HEADER_SIZE);
  if (imagesDir !== undefined) {
    const f = join(imagesDir, imageFile(hash));
    if (!existsSync(f)) writeWhole(f, bytes);
  }
  const added = await q.query(
    `INSERT INTO images (hash, version, security_counter, size, manifest, path, added_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT DO NOTHING RETURNING hash`,
    [
      hash,
      img.versionText,
      img.header.securityCounter,
      bytes.length,
      toHex(manifest),
      imagesDir === undefined ? null : imageFile(hash),
      now,
    ],
  );
  if (added.rows.length > 0 && imagesDir === undefined)
    for (let i = 0; i * IMAGE_CHUNK < bytes.length; i++)
      await q.query(`INSERT INTO image_chunks (hash, idx, data) VALUES ($1, $2, $3)`, [
        hash,
        i,
        bytes.subarray(i * IMAGE_CHUNK, (i + 1) * IMAGE_CHUNK),
      ]);
  return { hash, version: img.versionText };
}

/**
 * The devices of a campaign: the enrolled ones (not revoked) of `group` (all without one); in a
 * development fleet (none enrolled), every device that sent its health. Ordered by id, then split in phases.
 */
async function targets(q: Query, group: string | null): Promise<string[]> {
  const enrolled = await q.query<{ device_id: string }>(
    `SELECT device_id FROM devices WHERE revoked_at IS NULL AND ($1::TEXT IS NULL OR group_name = $1) ORDER BY device_id`,
    [group],
  );
  if (enrolled.rows.length > 0 || group !== null) return enrolled.rows.map((r) => r.device_id);
  const any = await q.query<{ n: number }>(`SELECT COUNT(*)::INTEGER AS n FROM devices`);
  if (Number(any.rows[0].n) > 0) return [];
  const seen = await q.query<{ device_id: string }>(`SELECT device_id FROM device_health ORDER BY device_id`);
  return seen.rows.map((r) => r.device_id);
}

export async function createCampaign(
  q: Query,
  o: CampaignSpec & {
    /** ms; 0 or absent: none. */
    deviceDeadlineMs?: number;
    retries?: number;
    /** The image goes to this folder (HASH.img) instead of the database's chunk rows. */
    imagesDir?: string;
    now: number;
  },
): Promise<CampaignStatus> {
  if (!CAMPAIGN_NAME.test(o.name)) throw new CampaignError('exists', `name '${o.name}': 1–40 printable characters`);
  const { hash } = await storeImage(q, o.image, o.now, o.imagesDir);
  const devices = o.devices ? [...o.devices].sort() : await targets(q, o.group ?? null);
  if (devices.length === 0)
    throw new CampaignError('no-devices', o.group ? `no enrolled device in group ${o.group}` : 'no device to update');
  const made = await q.query(
    `INSERT INTO campaigns (name, image_hash, group_name, phases, max_failures, state, phase, created_at, updated_at,
                            device_deadline_ms, retries, phase_at)
       VALUES ($1, $2, $3, $4, $5, 'running', 1, $6, $6, $7, $8, $6) ON CONFLICT DO NOTHING RETURNING name`,
    [o.name, hash, o.group ?? null, o.phases.join(','), o.maxFailures, o.now, o.deviceDeadlineMs ?? 0, o.retries ?? 0],
  );
  if (made.rows.length === 0) throw new CampaignError('exists', `campaign ${o.name} exists already`);
  const ph = phaseOf(devices.length, o.phases);
  for (let i = 0; i < devices.length; i++)
    await q.query(
      `INSERT INTO campaign_devices (campaign, device_id, phase, state, updated_at) VALUES ($1, $2, $3, 'pending', $4)`,
      [o.name, devices[i], ph[i], o.now],
    );
  return (await campaignStatus(q, o.name))!;
}

/**
 * Fails every device of a running phase past its campaign's deadline: nothing said of the image within
 * device_deadline_ms of the later of its phase's start (or resume) and its own last step. Run at each
 * sync and once before `campaign status` reads, so a silent device fails even though it never asks; then
 * the campaigns move on.
 */
export async function expireSilent(q: Query, now: number): Promise<void> {
  const r = await q.query<{ campaign: string }>(
    `UPDATE campaign_devices d SET state = 'failed', detail = 'deadline', updated_at = $1
       FROM campaigns c
      WHERE c.name = d.campaign AND c.state = 'running' AND c.device_deadline_ms > 0 AND d.phase <= c.phase
        AND d.state IN ('pending', 'offered', 'installed')
        AND GREATEST(d.updated_at, c.phase_at) + c.device_deadline_ms <= $1
      RETURNING d.campaign`,
    [now],
  );
  for (const name of new Set(r.rows.map((x) => x.campaign))) await advance(q, name, now);
}

/** A campaigns row with its numbers as numbers (the drivers may give a BIGINT as text). */
function campaignRow<T extends CampaignRow>(c: T): T {
  return {
    ...c,
    phase: Number(c.phase),
    max_failures: Number(c.max_failures),
    created_at: Number(c.created_at),
    updated_at: Number(c.updated_at),
    device_deadline_ms: Number(c.device_deadline_ms),
    retries: Number(c.retries),
    phase_at: Number(c.phase_at),
  };
}

/** A campaign's status as the database holds it (a read: `campaign status` runs expireSilent first). */
export async function campaignStatus(q: Query, name: string): Promise<CampaignStatus | null> {
  const c = (
    await q.query<CampaignRow & { version: string; security_counter: number }>(
      `SELECT c.*, i.version, i.security_counter FROM campaigns c JOIN images i ON i.hash = c.image_hash WHERE c.name = $1`,
      [name],
    )
  ).rows[0];
  if (!c) return null;
  const ds = (
    await q.query<{ device_id: string; phase: number; state: DeviceState; detail: string | null; attempts: number }>(
      `SELECT device_id, phase, state, detail, attempts FROM campaign_devices WHERE campaign = $1 ORDER BY phase, device_id`,
      [name],
    )
  ).rows;
  const per = new Map<number, CampaignStatus['per_phase'][number]>();
  for (const d of ds) {
    const p = per.get(d.phase) ?? { phase: d.phase, devices: 0, states: {} };
    p.devices++;
    p.states[d.state] = (p.states[d.state] ?? 0) + 1;
    per.set(d.phase, p);
  }
  return {
    ...campaignRow(c),
    security_counter: Number(c.security_counter),
    per_phase: [...per.values()],
    failures: ds.filter((d) => d.state === 'failed').length,
    devices: ds.map((d) => ({ ...d, phase: Number(d.phase), attempts: Number(d.attempts) })),
  };
}

export async function listCampaigns(q: Query): Promise<CampaignRow[]> {
  const r = await q.query<CampaignRow>(`SELECT * FROM campaigns ORDER BY created_at, name`);
  return r.rows.map(campaignRow);
}

/** pause (running → paused), resume (paused → running), abort (running or paused → aborted). */
export async function setCampaignState(
  q: Query,
  name: string,
  verb: 'pause' | 'resume' | 'abort',
  now: number,
): Promise<CampaignState> {
  const from = verb === 'pause' ? ['running'] : verb === 'resume' ? ['paused'] : ['running', 'paused'];
  const to: CampaignState = verb === 'pause' ? 'paused' : verb === 'resume' ? 'running' : 'aborted';
  const r = await q.query(
    `UPDATE campaigns SET state = $2, updated_at = $3 WHERE name = $1 AND (state = $4 OR state = $5) RETURNING name`,
    [name, to, now, from[0], from[from.length - 1]],
  );
  if (r.rows.length === 0) {
    const c = (await q.query<{ state: string }>(`SELECT state FROM campaigns WHERE name = $1`, [name])).rows[0];
    if (!c) throw new CampaignError('unknown', `no campaign ${name}`);
    throw new CampaignError('state', `campaign ${name} is ${c.state}: cannot ${verb}`);
  }
  if (to === 'running') {
    // The deadline runs from the resume: a paused campaign serves no chunk.
    await q.query(`UPDATE campaigns SET phase_at = $2 WHERE name = $1`, [name, now]);
    await advance(q, name, now);
  }
  return to;
}

/** Stops the campaign at `max_failures`; else starts the next phase once every device of this one is done. */
async function advance(q: Query, name: string, now: number): Promise<void> {
  const row = (await q.query<CampaignRow>(`SELECT * FROM campaigns WHERE name = $1`, [name])).rows[0];
  if (!row || row.state !== 'running') return;
  const c = campaignRow(row);
  const phase = c.phase;
  const rows = (
    await q.query<{ phase: number; state: DeviceState }>(
      `SELECT phase, state FROM campaign_devices WHERE campaign = $1`,
      [name],
    )
  ).rows;
  const failures = rows.filter((r) => r.state === 'failed').length;
  if (failures >= c.max_failures) {
    await q.query(`UPDATE campaigns SET state = 'stopped', updated_at = $2 WHERE name = $1 AND state = 'running'`, [
      name,
      now,
    ]);
    return;
  }
  const open = rows.some((r) => Number(r.phase) <= phase && r.state !== 'confirmed' && r.state !== 'failed');
  if (open) return;
  const last = Math.max(...rows.map((r) => Number(r.phase)));
  if (phase >= last)
    await q.query(`UPDATE campaigns SET state = 'done', updated_at = $2 WHERE name = $1 AND state = 'running'`, [
      name,
      now,
    ]);
  else
    await q.query(
      `UPDATE campaigns SET phase = $3, updated_at = $2, phase_at = $2 WHERE name = $1 AND state = 'running' AND phase = $4`,
      [name, now, phase + 1, phase],
    );
}

/**
 * A device's sync with its health: what it says of the campaigns it is in moves its state on (it runs
 * the image: confirmed; it says the download failed: failed; it had installed it and runs another one:
 * reverted, failed), then the order for a campaign whose running phase holds it, if any.
 */
export async function deviceReport(
  q: Query,
  deviceId: string,
  h: Health,
  now: number,
): Promise<UpdateOffer | undefined> {
  await expireSilent(q, now);
  const mine = (
    await q.query<{
      campaign: string;
      state: DeviceState;
      image_hash: string;
      c_state: CampaignState;
      phase: number;
      c_phase: number;
      attempts: number;
      retries: number;
    }>(
      `SELECT d.campaign, d.state, c.image_hash, c.state AS c_state, d.phase, c.phase AS c_phase, d.attempts, c.retries
         FROM campaign_devices d JOIN campaigns c ON c.name = d.campaign
        WHERE d.device_id = $1 AND d.state <> 'confirmed' AND d.state <> 'failed' ORDER BY c.created_at`,
      [deviceId],
    )
  ).rows;
  let offer: UpdateOffer | undefined;
  for (const m of mine) {
    const [hash, what, ...why] = h.update.split(':');
    let next: DeviceState | null = null;
    let detail: string | null = null;
    let attempts = Number(m.attempts);
    if (h.image === m.image_hash) next = 'confirmed';
    else if (hash === m.image_hash && what === 'failed') {
      detail = why.join(':') || 'failed';
      // A failed download is ordered again (its next sync) while retries are left.
      if (attempts < Number(m.retries)) [next, detail] = ['pending', `retry ${++attempts} of ${m.retries}: ${detail}`];
      else next = 'failed';
    } else if (hash === m.image_hash && what === 'installed') next = 'installed';
    else if (m.state === 'installed') [next, detail] = ['failed', `reverted (boot: ${h.boot}, runs ${h.fw})`];
    if (next && (next !== m.state || attempts !== Number(m.attempts))) {
      await q.query(
        `UPDATE campaign_devices SET state = $3, detail = $4, updated_at = $5, attempts = $6 WHERE campaign = $1 AND device_id = $2`,
        [m.campaign, deviceId, next, detail, now, attempts],
      );
      await advance(q, m.campaign, now);
      continue;
    }
    if (offer || next || m.c_state !== 'running' || Number(m.phase) > Number(m.c_phase)) continue;
    if (m.state === 'installed') continue; // it restarts into it; its next sync says how that went
    const img = (
      await q.query<{ size: number; manifest: string }>(`SELECT size, manifest FROM images WHERE hash = $1`, [
        m.image_hash,
      ])
    ).rows[0];
    offer = { campaign: m.campaign, hash: m.image_hash, size: Number(img.size), manifest: img.manifest };
    if (m.state === 'pending')
      await q.query(
        `UPDATE campaign_devices SET state = 'offered', updated_at = $3 WHERE campaign = $1 AND device_id = $2`,
        [m.campaign, deviceId, now],
      );
  }
  return offer;
}

/**
 * One chunk of an image for `/v1/chunk`: served only while a campaign of that image runs (`paused`: the
 * device waits and asks again; `gone`: aborted, stopped or done, it gives up). An image kept in a folder
 * is read 4 KiB at its offset from the file its row names (HASH.img) in `imagesDir` (the server's
 * `--images DIR`); `unavailable`
 * (the device asks again later) when the server has no folder or the file is not the image's size.
 */
export async function imageChunk(
  q: Query,
  hash: string,
  offset: number,
  imagesDir?: string,
): Promise<{ data: Uint8Array } | { status: 'paused' | 'gone' | 'unknown' | 'unavailable' }> {
  const states = (
    await q.query<{ state: CampaignState }>(`SELECT state FROM campaigns WHERE image_hash = $1`, [hash])
  ).rows.map((r) => r.state);
  if (!states.includes('running'))
    return { status: states.includes('paused') ? 'paused' : states.length ? 'gone' : 'unknown' };
  const img = (
    await q.query<{ path: string | null; size: number }>(`SELECT path, size FROM images WHERE hash = $1`, [hash])
  ).rows[0];
  if (img && img.path !== null) {
    const size = Number(img.size);
    if (offset >= size) return { status: 'unknown' };
    if (imagesDir === undefined) return { status: 'unavailable' };
    let f;
    try {
      f = await open(join(imagesDir, img.path), 'r');
    } catch {
      return { status: 'unavailable' };
    }
    try {
      if ((await f.stat()).size !== size) return { status: 'unavailable' };
      const data = new Uint8Array(Math.min(IMAGE_CHUNK, size - offset));
      const { bytesRead } = await f.read(data, 0, data.length, offset);
      return bytesRead === data.length ? { data } : { status: 'unavailable' };
    } finally {
      await f.close();
    }
  }
  const r = await q.query<{ data: Uint8Array }>(`SELECT data FROM image_chunks WHERE hash = $1 AND idx = $2`, [
    hash,
    offset / IMAGE_CHUNK,
  ]);
  if (r.rows.length === 0) return { status: 'unknown' };
  return { data: r.rows[0].data };
}
