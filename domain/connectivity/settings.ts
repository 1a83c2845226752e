import type { SecretBox } from '../security/index.ts';

/** What connectivity needs from the composition root. */
export interface ConnectivitySettings {
  /** The service's one sealer; each connection's secret is bound to the connection's id. */
  secrets: SecretBox;
  /** Sources may be on loopback, private and link-local addresses (SVC_CONNECTIVITY_PRIVATE_NETWORKS=allow). */
  privateNetworks: boolean;
}
