"""A parallel environment's ``allocation_rule`` applied to the slots each host can
give (``place.allocate``; the rules are in ``place``'s module doc), and the grant list
it makes, the master first."""

from __future__ import annotations

from .world import Instance


def master_first(
    wanted: dict[str, int], hosts: dict[str, list[tuple[Instance, int]]]
) -> list[tuple[Instance, int]]:
    """The slots each host gives (``wanted``) taken from its instances in order, the
    master first."""
    grants: list[tuple[Instance, int]] = []
    for index, (host, count) in enumerate(wanted.items()):
        mine = []
        for inst, k in hosts[host]:
            take = min(k, count)
            if take > 0:
                mine.append((inst, take))
                count -= take
        # on the master host each instance taken goes to the front of the grant list
        # (the scheduler puts the master queue first, and every one of them qualifies),
        # so the last one taken there is the master
        grants += mine[::-1] if index == 0 else mine
    return grants


def by_rule(rule: str, n: int, room: dict[str, int]) -> dict[str, int] | None:
    if rule == "$pe_slots":
        host = next((h for h, k in room.items() if k >= n), None)
        return None if host is None else {host: n}
    if rule.isdigit():
        per = int(rule)
        if per <= 0 or n % per:
            return None
        chosen = [h for h, k in room.items() if k >= per][: n // per]
        return {h: per for h in chosen} if len(chosen) == n // per else None
    out: dict[str, int] = {}
    left = n
    if rule == "$fill_up":
        for h, k in room.items():
            take = min(k, left)
            if take:
                out[h] = take
                left -= take
    elif rule == "$round_robin":
        while left > 0 and any(room[h] > out.get(h, 0) for h in room):
            for h in room:
                if left and room[h] > out.get(h, 0):
                    out[h] = out.get(h, 0) + 1
                    left -= 1
    return out if left == 0 else None


def offered(rule: str, n: int, room: dict[str, int]) -> int:
    """The slots an allocation rule could gather for ``n`` (what ``qstat -j`` says a PE
    "only offers"): a host counts only when it has the ``n`` ($pe_slots) or the fixed
    number it must give."""
    if rule == "$pe_slots":
        return n if any(k >= n for k in room.values()) else 0
    if rule.isdigit():
        per = int(rule)
        return per * sum(1 for k in room.values() if k >= per)
    return min(n, sum(room.values()))
