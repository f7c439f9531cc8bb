/** jsQR's dist text as the firmware bundles it (build-jsqr.mjs). */
export function patchJsQR(src: string): string;
