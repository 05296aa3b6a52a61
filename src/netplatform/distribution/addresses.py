"""Publisher addresses: the feed's ``endpoint_addrs`` (hosts or subnets) and the match of a source IP."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IpNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


def parse_network(text: str) -> IpNetwork | None:
    """``10.0.0.1``, ``10.0.0.0/8``, ``2001:db8::/32`` -> a network; anything else -> None.

    Only ``addr/masklen`` is accepted for subnets (mask at most 32 or 128); host bits under the
    mask are allowed, as the reference allows them.
    """
    host, slash, mask = text.partition("/")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return None
    if not slash:
        return ipaddress.ip_network(address)
    if not mask.isdigit() or len(mask) > 3 or int(mask) > address.max_prefixlen:
        return None
    return ipaddress.ip_network(f"{address}/{int(mask)}", strict=False)


def is_valid_address(text: str) -> bool:
    return parse_network(text) is not None


def address_allowed(source_ip: str, allowed: Iterable[str]) -> bool:
    """True when ``source_ip`` is inside one of ``allowed`` (an IPv4-mapped IPv6 counts as IPv4)."""
    try:
        address = ipaddress.ip_address(source_ip.split("%", 1)[0])
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    for text in allowed:
        network = parse_network(text)
        if network is not None and network.version == address.version and address in network:
            return True
    return False
