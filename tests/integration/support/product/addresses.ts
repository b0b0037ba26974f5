import { networkInterfaces } from 'node:os';

// The addresses of this machine besides loopback (on the test machines: 192.0.2.2 and fd00::2):
// a test that connects to one of them reaches the product from that address, as a customer's
// client on the network would, where the product counts loopback as the host itself.

export interface OwnAddresses {
  ipv4: string;
  /** A global or unique-local IPv6 address (not link-local), when the machine has one. */
  ipv6?: string;
}

export function ownAddresses(): OwnAddresses {
  const all = Object.values(networkInterfaces()).flatMap((entries) => entries ?? []);
  const ipv4 = all.find((entry) => entry.family === 'IPv4' && !entry.internal)?.address;
  const ipv6 = all.find((entry) => entry.family === 'IPv6' && !entry.internal && !entry.address.toLowerCase().startsWith('fe80'))?.address;
  if (!ipv4) throw new Error('this machine has no IPv4 address besides loopback: the product cannot be reached from one');
  return { ipv4, ipv6 };
}

/** The origin of the product on `port` at `address` (an IPv6 address in brackets). */
export function originAt(address: string, port: number): string {
  return `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
}
