/** jsQR's dist text as the firmware bundles it (firmware/jsqr-patch.mjs). */
export function patchJsQR(src: string): string;
