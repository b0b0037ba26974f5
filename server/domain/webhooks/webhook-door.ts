import { openOutboundDoor } from '../../providers/outbound/outbound-door';
import { privateNetworksAllowed } from './endpoint-address';

// The webhooks' door: every delivery goes through it, with an allowance of its own. A private
// address is reached only while WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (then at any origin), never
// because a provider's base_url named that origin: the providers' door and its allowance are
// another (server/providers/outbound/provider-door.ts), and so is its pool of connections.

export const webhookDoor = openOutboundDoor(() => privateNetworksAllowed());
