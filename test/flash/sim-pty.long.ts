// Every cut point of sim-pty.test.ts (10, 50 and 90 % on a fresh development chip); npm test runs one.
import './sim-pty.test.ts';
