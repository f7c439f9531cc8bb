// Every shipped scenario on Moddable XS too, and fleet-campaign.yaml (scenarios.test.ts: QuickJS in npm test).
import './scenarios.test.ts';
