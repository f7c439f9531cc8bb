// Every 5th flash operation cut of service-driver.test.ts (npm test cuts at every 15th).
import './service-driver.test.ts';
