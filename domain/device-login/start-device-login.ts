import type { DbOrTrx } from '../db/index.ts';
import { DEFAULT_CLIENT_NAME } from '../keys/index.ts';
import { enqueue } from '../outbox/index.ts';
import { newId, randomBase62, sha256 } from '../security/index.ts';
import { DEVICE_LOGIN } from './settings.ts';
import { formatUserCode, generateUserCode } from './user-code.ts';

/** A1: a device code for the client, a user code for the person; the expiry clock starts through the outbox. */
export async function startDeviceLogin(db: DbOrTrx, input: { clientName?: string | undefined; verificationUri: string }) {
  const deviceCode = randomBase62(32); // 256 bits, 43 characters of [0-9A-Za-z]
  let userCode = generateUserCode();
  // Pending user codes must be unique; a clash in 2.6e10 is rare, so simply draw again.
  while (
    await db.selectFrom('device_logins').select('id').where('user_code', '=', userCode).where('status', '=', 'pending').executeTakeFirst()
  ) {
    userCode = generateUserCode();
  }
  const id = newId('dev');
  const clientName = input.clientName ?? DEFAULT_CLIENT_NAME;
  const expiresAt = new Date(Date.now() + DEVICE_LOGIN.expiresInSeconds * 1000);
  await db
    .insertInto('device_logins')
    .values({
      id,
      device_code_hash: sha256(deviceCode),
      user_code: userCode,
      client_name: clientName,
      status: 'pending',
      interval_seconds: DEVICE_LOGIN.intervalSeconds,
      expires_at: expiresAt,
    })
    .execute();
  await enqueue(db, { topic: 'device-login.started', key: id, payload: { expiresAt: expiresAt.toISOString() } });
  const display = formatUserCode(userCode);
  return {
    started: {
      deviceCode,
      userCode: display,
      verificationUri: input.verificationUri,
      verificationUriComplete: `${input.verificationUri}?code=${display}`,
      expiresIn: DEVICE_LOGIN.expiresInSeconds,
      interval: DEVICE_LOGIN.intervalSeconds,
    },
    plan: { wouldCreate: { clientName, expiresIn: DEVICE_LOGIN.expiresInSeconds } },
  };
}
