import { promises as dnsPromises } from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may be sent (docs/API.md, Webhooks: safe targets). A URL is checked when an
 * endpoint is made or changed and again before every delivery, since what a name resolves to can
 * change: the delivery then connects to the addresses this check approved, never to a second
 * resolution of the name.
 */
export interface TargetPolicy {
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS: plain http, and loopback, private and link-local addresses. */
  allowPrivate: boolean;
  /** A host name's addresses (the system resolver; WEBHOOKS_DNS_SERVERS names others). */
  resolve(host: string): Promise<string[]>;
}

/** A target refused, with why in words a user can act on. */
export class TargetRefused extends Error {}

export interface CheckedTarget {
  url: URL;
  /** The addresses the delivery may connect to. */
  addresses: string[];
}

/**
 * Public unicast only: loopback, private (RFC 1918, unique local), link-local (the cloud metadata
 * address 169.254.169.254 among them), shared (100.64.0.0/10), multicast, reserved and the
 * addresses that wrap an IPv4 one (mapped, 6to4, Teredo) are refused as ipaddr.js classes them.
 */
export function isPublicAddress(address: string): boolean {
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  return parsed.range() === 'unicast';
}

/** The system resolver, or DNS servers named in WEBHOOKS_DNS_SERVERS (`host[:port]`, comma-separated). */
export function resolverOf(servers: readonly string[] | undefined, timeoutMs = 5000): TargetPolicy['resolve'] {
  if (!servers?.length) {
    return async (host) => (await dnsPromises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);
  }
  const resolver = new dnsPromises.Resolver({ timeout: timeoutMs, tries: 2 });
  resolver.setServers([...servers]);
  return async (host) => {
    const found = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
    return found.flatMap((r) => (r.status === 'fulfilled' ? r.value : []));
  };
}

/** The URL checked and its addresses, or TargetRefused saying why. */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<CheckedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowPrivate)) {
    throw new TargetRefused(policy.allowPrivate ? 'must be an http or https URL' : 'must be an https URL (http only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)');
  }
  if (url.username || url.password) throw new TargetRefused('must not carry a user name or password');
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await policy.resolve(host);
    } catch {
      addresses = [];
    }
  }
  if (addresses.length === 0) throw new TargetRefused(`its host ${host} does not resolve`);
  if (!policy.allowPrivate) {
    const blocked = addresses.find((a) => !isPublicAddress(a));
    if (blocked) {
      const what = net.isIP(host) ? host : `its host ${host} resolves to ${blocked}, which`;
      throw new TargetRefused(`${what} is a loopback, private, link-local or reserved address (allowed only with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true)`);
    }
  }
  return { url, addresses };
}
