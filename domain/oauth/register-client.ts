import type { z } from 'zod';
import type { ClientRegistration, RegisteredClient } from '../../schemas/oauth.ts';
import type { DbOrTrx } from '../db/index.ts';
import type { Clock } from '../deps.ts';
import { newId } from '../security/index.ts';
import { oauthError } from './repository.ts';

const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Where codes may be sent (OAuth 2.1, RFC 8252): https, http on the loopback interface only
 * (native hosts listen on a port of their own), or a private-use scheme in reverse-domain form.
 * Never with a fragment.
 */
function assertRedirectUri(uri: string, index: number): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw oauthError('invalid_payload', 'invalid_redirect_uri', `redirect_uris[${index}] is not an absolute URL.`);
  }
  const scheme = url.protocol.slice(0, -1);
  const allowed =
    scheme === 'https' ||
    (scheme === 'http' && LOOPBACK.has(url.hostname)) ||
    (scheme.includes('.') && !['http', 'https'].includes(scheme));
  if (!allowed || url.hash !== '' || uri.includes('#')) {
    throw oauthError(
      'invalid_payload',
      'invalid_redirect_uri',
      `redirect_uris[${index}] must be https, http on 127.0.0.1, [::1] or localhost, or a reverse-domain private scheme, without a fragment.`,
    );
  }
}

/** RFC 7591 dynamic registration of a public client (an MCP host); anyone may register. */
export async function registerClient(db: DbOrTrx, clock: Clock, input: ClientRegistration): Promise<z.input<typeof RegisteredClient>> {
  input.redirect_uris.forEach(assertRedirectUri);
  const id = newId('ocl');
  const issuedAt = clock.now();
  const answer = {
    ...input,
    client_id: id,
    client_id_issued_at: Math.floor(issuedAt.getTime() / 1000),
    client_name: input.client_name ?? 'MCP host',
    token_endpoint_auth_method: 'none' as const,
    grant_types: input.grant_types ?? ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  };
  await db
    .insertInto('oauth_clients')
    .values({
      id,
      name: answer.client_name,
      redirect_uris: JSON.stringify(input.redirect_uris),
      metadata: JSON.stringify(answer),
      created_at: issuedAt,
    })
    .execute();
  return answer;
}
