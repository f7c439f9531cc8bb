// The three-phase campaign of campaign.test.ts on 10 devices (npm test: 4).
import './campaign.test.ts';
