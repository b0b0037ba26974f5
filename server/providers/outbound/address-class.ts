import { BlockList, isIP } from 'node:net';

// What kind of address an outgoing connection would reach (docs/providers.md, "One outbound
// door"): `metadata` is never connected to (cloud metadata services and link-local, which hand
// out the machine's credentials), `private` only where allowed (loopback, RFC 1918, CGNAT,
// unique-local, multicast, documentation, reserved), `public` always. An IPv6 address that carries
// an IPv4 one (mapped ::ffff:, compatible ::, translated ::ffff:0:, NAT64 64:ff9b::/96 and
// 64:ff9b:1::/48, 6to4 2002::/16) is judged by that IPv4 address too: a NAT64 gateway turns
// 64:ff9b::a9fe:a9fe into 169.254.169.254.

export type AddressClass = 'metadata' | 'private' | 'public';

/**
 * Cloud metadata and platform services, which hand out the machine's credentials: never
 * connected to, whatever allows private networks. deploy/kubernetes/network-policy.yaml refuses
 * each of them too (tests/unit/deploy-files.test.ts holds the two together).
 */
export const METADATA_RANGES: readonly (readonly [network: string, prefix: number, family: 'ipv4' | 'ipv6'])[] = [
  ['169.254.0.0', 16, 'ipv4'], // link-local: AWS, GCP, Azure, Oracle, DigitalOcean, OpenStack (169.254.169.254), ECS 169.254.170.2, EKS 169.254.170.23, Tencent 169.254.0.23, Scaleway 169.254.42.42
  ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud
  ['168.63.129.16', 32, 'ipv4'], // Azure WireServer (the VM agent's certificates and settings)
  ['192.0.0.192', 32, 'ipv4'], // Oracle Cloud Classic
  ['fe80::', 10, 'ipv6'], // IPv6 link-local
  ['fd00:ec2::', 64, 'ipv6'], // AWS: metadata fd00:ec2::254, EKS Pod Identity fd00:ec2::23
  ['fd20:ce::254', 128, 'ipv6'], // Google Cloud, IPv6-only instances
  ['fd00:c1::a9fe:a9fe', 128, 'ipv6'], // Oracle Cloud Infrastructure
  ['fd00:42::42', 128, 'ipv6'], // Scaleway
  ['fd00:a9fe:a9fe::1', 128, 'ipv6'], // Akamai (Linode)
  ['fd00:100::100:200', 128, 'ipv6'], // Alibaba Cloud
];

const METADATA = new BlockList();
for (const [network, prefix, family] of METADATA_RANGES) METADATA.addSubnet(network, prefix, family);

const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24], // documentation (RFC 5737), as 198.51.100.0/24 and 203.0.113.0/24
  ['192.88.99.0', 24], // the retired 6to4 relay anycast (RFC 7526)
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 127], // unspecified and loopback
  ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215): whatever it carries is the operator's network
  ['100::', 64], // discard-only (RFC 6666)
  ['2001:2::', 48], // benchmarking (RFC 5180)
  ['2001:10::', 28], // ORCHID, and ORCHIDv2 below (RFC 4843, 7343): never routed
  ['2001:20::', 28],
  ['2001:db8::', 32], // documentation (RFC 3849), as 3fff::/20 (RFC 9637)
  ['3fff::', 20],
  ['fc00::', 7],
  ['fec0::', 10], // site-local (deprecated by RFC 3879): still routed inside some networks
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part allowed), or undefined. */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail, ...rest] = text.split('::');
  if (rest.length > 0) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => parseInt(group, 16)) : []);
  const front = parse(head);
  const back = parse(tail);
  const groups = tail === undefined ? front : [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
  return groups.length === 8 && groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff) ? groups : undefined;
}

/**
 * The IPv4 address an IPv6 address carries (mapped, compatible, translated ::ffff:0:0/96, NAT64's
 * well-known prefix, and its local-use /48 in the /96 form translators use, 6to4).
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const zeros = (from: number, to: number) => g.slice(from, to).every((group) => group === 0);
  const quad = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  if (zeros(0, 5) && (g[5] === 0xffff || g[5] === 0)) return quad(g[6]!, g[7]!);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return quad(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return quad(g[6]!, g[7]!);
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return quad(g[6]!, g[7]!);
  if (g[0] === 0x2002) return quad(g[1]!, g[2]!);
  return undefined;
}

function classOfPlain(address: string, family: 'ipv4' | 'ipv6'): AddressClass {
  if (METADATA.check(address, family)) return 'metadata';
  return PRIVATE.check(address, family) ? 'private' : 'public';
}

const RANK: Record<AddressClass, number> = { public: 0, private: 1, metadata: 2 };

/** The class of an IP address (brackets allowed); anything that is not an IP address is `metadata` (never connected to). */
export function addressClass(raw: string): AddressClass {
  const address = raw.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(address);
  if (family === 4) return classOfPlain(address, 'ipv4');
  if (family !== 6) return 'metadata';
  const own = classOfPlain(address, 'ipv6');
  const inner = embeddedIpv4(address);
  if (inner === undefined) return own;
  const carried = classOfPlain(inner, 'ipv4');
  return RANK[carried] > RANK[own] ? carried : own;
}
