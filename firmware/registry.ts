// The registry link's seam (as camera.ts is the camera's): the firmware bundle carries the link packed and
// compiles it at boot on a device configured with a registry (tools/build.ts `LAZY_PARTS`); a device
// without one drops the packed text (`dropLink`) and never compiles it. Unbundled (tests in Node), the
// module itself.
import { openLink as open } from './registry/link.ts';

export const openLink: typeof open = open;
/** No registry configured: the packed text is not needed. A no-op here, where nothing is packed. */
export const dropLink = (): void => undefined;
