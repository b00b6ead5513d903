// Lists of IP addresses and CIDR ranges (serve.trustedProxies): checked once when the config is
// read (a word that is neither stops the command with its own message) and matched against a
// peer's address, IPv4-mapped IPv6 addresses ("::ffff:10.0.0.1") as the IPv4 ones they are.
import { BlockList, isIP } from "node:net";

/** One address or range as written: `10.0.0.1`, `10.0.0.0/8`, `::1`, `fd00::/8`. */
export interface AddressRange {
  address: string;
  prefix: number;
  family: "ipv4" | "ipv6";
}

// The range a word names, or why it names none (the message a config error shows).
export function parseAddressRange(text: string): AddressRange | string {
  const [address = "", prefixText, ...rest] = text.trim().split("/");
  const version = isIP(address);
  if (version === 0 || rest.length > 0)
    return `"${text}" is not an IP address or CIDR range (e.g. 10.0.0.5, 10.0.0.0/8, fd00::/8)`;
  const family = version === 4 ? "ipv4" : "ipv6";
  const max = version === 4 ? 32 : 128;
  if (prefixText === undefined) return { address, prefix: max, family };
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  if (prefix < 0 || prefix > max)
    return `"${text}": the prefix length after "/" must be 0 to ${max}`;
  return { address, prefix, family };
}

/** A peer's address as logs and limits name it: an IPv4-mapped IPv6 address as IPv4. */
export function plainAddress(address: string): string {
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3})$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A set of addresses and ranges; an empty one matches nothing. */
export class AddressRanges {
  private readonly list = new BlockList();
  readonly size: number;

  // Every word must be an address or range (the config was checked; a bad word throws here).
  constructor(words: readonly string[]) {
    for (const word of words) {
      const range = parseAddressRange(word);
      if (typeof range === "string") throw new Error(range);
      this.list.addSubnet(range.address, range.prefix, range.family);
    }
    this.size = words.length;
  }

  // True when the address (of a socket, or named by a header) is in one of the ranges.
  has(address: string | undefined): boolean {
    if (!address || this.size === 0) return false;
    const plain = plainAddress(address);
    const version = isIP(plain);
    if (version === 0) return false;
    return this.list.check(plain, version === 4 ? "ipv4" : "ipv6");
  }
}
