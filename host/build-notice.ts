// What `saphir sim` and `saphir demo` say when they rebuild the firmware before running it.
import type { Lang } from '../src/i18n.ts';
import { messages } from '../src/messages/index.ts';
import type { StaleReason } from '../tools/build.ts';

export function buildNotice(lang: Lang, why: StaleReason): string {
  const m = messages(lang).build;
  return 'missing' in why ? m.missing(why.missing) : m.newer(why.newer);
}
