// Every seeded power cut of bootloader.test.ts (npm test runs a sample of them).
import './bootloader.test.ts';
