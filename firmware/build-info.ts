// What the build injected; defaults for unbundled runs (unit tests in Node).
export const VERSION: string = typeof __VERSION__ === 'string' ? __VERSION__ : '0.0.0-dev';
export const PRODUCTION: boolean = typeof __PRODUCTION__ === 'boolean' ? __PRODUCTION__ : false;
export const PRODUCT = 'SAPHIR Validateur';
