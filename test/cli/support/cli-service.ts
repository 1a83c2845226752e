import { passwordKey, seedCompanies } from '../../support/identity.ts';
import { startTestService } from '../../support/service.ts';
import { cliHome } from './cli.ts';

/**
 * What most CLI tests start from: a test service with the seeded companies, and a CLI home whose
 * environment acts as dana's key (Acme's developer) against it. `close` ends both.
 */
export async function startCliService(options?: Parameters<typeof startTestService>[0]) {
  const svc = await startTestService(options);
  try {
    const seeded = await seedCompanies(svc);
    const home = await cliHome();
    const key = await passwordKey(svc, 'dana');
    return {
      svc,
      seeded,
      home,
      key,
      env: { ...home.env, SVC_BASE_URL: svc.url!, SVC_API_KEY: key },
      async close() {
        await svc.close();
        await home.remove();
      },
    };
  } catch (err) {
    await svc.close();
    throw err;
  }
}
