"""Reference ladders: frozen, pre-rated opponents for every configuration, and rating any agent against them.

A *ladder* is one configuration (game, player count, variant) with a fixed set of *members* spanning the
strength range: ``random``, the game's ``heuristic``, the guided search (the game's tuned ``mcts``) at three
simulation budgets, and, where a network ships for the configuration, the network alone and the search guided
by it.  Its members were rated once, from a large seeded league among them (:mod:`.league`: rotated seats,
duplicate deals, openskill Plackett-Luce), and the ratings ship with the package as data
(``training/ladders/<key>.json``) with the command that reproduces them and the compute it took.

:func:`rate` places any agent on a ladder's scale: it plays a fixed, seeded schedule of games against the
members (the agent's seat rotated; in multi-player games the other seats drawn from the ladder) and updates
the agent's rating after each game with every member's rating held at its shipped value, in game order, so
the result does not depend on the worker count.  The rating is shown on the Elo scale of
:mod:`.ratings` (1500 = openskill's prior mean) with its 95% interval, next to a table of results against
each member.

**Versions.**  A ladder's version is a short hash of everything that fixes its ratings: the environment's
versioned name and observation version, the rule options, every member's spec (and the bytes of a shipped
network), the rating model and the build schedule.  Any change gives a new version; every printed rating
names it, and a shipped ladder whose version no longer matches the code is refused until it is rebuilt.  Two
reports of different versions stay comparable through the members they share.

See ``docs/LADDER.md`` for the external-program protocol, the schedule and how to add a member.
"""

from __future__ import annotations

import hashlib
import json
import resource
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from meeplezoo.registry import GAMES, game_class, make_game

from .league import LeagueConfig, league_standings, read_league, run_league
from .ratings import ELO_BASE, RatingConfig

LADDER_FORMAT = 1
#: simulations of the three search members (weak, middle, strong): budgets in simulations keep games reproducible
SEARCH_SIMS = (8, 24, 64)
#: simulations of the search guided by the shipped network
NETWORK_SEARCH_SIMS = 32
#: the seed and default size of the league that rates the members
BUILD_SEED = 2026
BUILD_MATCHES = 160
#: games a rating plays by default
DEFAULT_GAMES = 60
#: where the shipped ladders live (package data)
DATA = Path(__file__).resolve().with_name("ladders")
#: the rule options that make a separate ladder (the variants); other options stay at their defaults
VARIANT_OPTIONS = ("variant", "version")


# -- which ladders exist ------------------------------------------------------------------------------
@dataclass(frozen=True)
class LadderSpec:
    """One ladder's configuration: the game, its player count and variant (non-default rule options)."""

    game: str
    num_players: int
    options: tuple[tuple[str, Any], ...] = ()

    @property
    def key(self) -> str:
        """File and display name: ``kerala-4p``, ``asara-3p-professional``, ``haus_der_sonne-2p-tactical``."""
        return "-".join([self.game, f"{self.num_players}p", *(str(v) for _, v in self.options)])

    def make_game(self) -> Any:
        return make_game(self.game, self.num_players, **dict(self.options))

    def members(self) -> list[tuple[str, str]]:
        """``(label, agent spec)`` of every member, weakest kind first."""
        out = [("random", "random"), ("heuristic", "heuristic")]
        out += [(f"search-{s}", f"mcts:sims={s}") for s in SEARCH_SIMS]
        if self.network() is not None:
            out += [("network", "pretrained"), (f"network-search-{NETWORK_SEARCH_SIMS}",
                                                f"pretrained:sims={NETWORK_SEARCH_SIMS}")]
        return out

    def network(self) -> Path | None:
        """The shipped network that plays this configuration, if any."""
        from meeplezoo.agents.pretrained import available

        for entry in available():
            if entry["game"] == self.game and entry["num_players"] == self.num_players \
                    and all(entry["rule_options"].get(k) == v for k, v in self.options):
                return Path(entry["path"])
        return None

    def identity(self, matches: int = BUILD_MATCHES) -> dict[str, Any]:
        """Everything that fixes the members' ratings (the version hashes it)."""
        game = self.make_game()
        net = self.network()
        return {"format": LADDER_FORMAT, "game": self.game, "env": game.env_name,
                "observation_version": game.observation_version, "num_players": self.num_players,
                "options": dict(self.options), "members": self.members(),
                "network_sha256": hashlib.sha256(net.read_bytes()).hexdigest() if net else None,
                "rating": RatingConfig().to_dict(), "seed": BUILD_SEED, "matches": int(matches)}

    def version(self, matches: int = BUILD_MATCHES) -> str:
        blob = json.dumps(self.identity(matches), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:8]


def ladder_specs() -> list[LadderSpec]:
    """Every configuration with a ladder: each game at each player count, in each variant."""
    out = []
    for name, info in GAMES.items():
        if info.example:
            continue
        cls = game_class(name)
        variants: list[tuple[tuple[str, Any], ...]] = [()]
        for opt in cls.options_spec:
            if opt.name in VARIANT_OPTIONS and opt.choices:
                variants += [((opt.name, c),) for c in opt.choices if c != opt.default]
        for n in range(cls.min_players, cls.max_players + 1):
            out += [LadderSpec(name, n, v) for v in variants]
    return out


def find_spec(game: str, num_players: int | None = None, options: dict[str, Any] | None = None) -> LadderSpec:
    """The ladder of a configuration (``options`` may hold the variant), or ValueError listing the ladders."""
    cls = game_class(game)
    n = int(num_players if num_players is not None else cls.default_players)
    opts = dict(options or {})
    bad = [k for k in opts if k not in VARIANT_OPTIONS]
    if bad:
        raise ValueError(f"ladder: only the variant options ({', '.join(VARIANT_OPTIONS)}) select a ladder; "
                         f"got {', '.join(bad)}")
    defaults = {o.name: o.default for o in cls.options_spec}
    want = tuple(sorted((k, v) for k, v in opts.items() if defaults.get(k) != v))
    for spec in ladder_specs():
        if spec.game == game and spec.num_players == n and spec.options == want:
            return spec
    keys = ", ".join(s.key for s in ladder_specs() if s.game == game)
    raise ValueError(f"ladder: no ladder for {game} at {n} players with {dict(want)}; ladders of {game}: {keys}")


# -- shipped ratings ------------------------------------------------------------------------------------
@dataclass
class MemberRating:
    label: str
    spec: str
    mu: float
    sigma: float
    games: int
    win_rate: float

    def elo(self, cfg: RatingConfig | None = None) -> tuple[float, float, float]:
        """``(elo, low, high)``: the rating and its 95% interval (``mu +- 2 sigma``) on the Elo scale."""
        return _elo(self.mu, self.sigma, cfg or RatingConfig())


def _cpu_seconds() -> float:
    """CPU time of this process and its finished children (pool workers are reaped when the pool closes)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def _elo(mu: float, sigma: float, cfg: RatingConfig) -> tuple[float, float, float]:
    k = cfg.elo_per_mu
    return (ELO_BASE + k * (mu - cfg.mu), ELO_BASE + k * (mu - 2 * sigma - cfg.mu),
            ELO_BASE + k * (mu + 2 * sigma - cfg.mu))


@dataclass
class Ladder:
    """A built ladder: its members' ratings, its version and how it was computed."""

    spec: LadderSpec
    version: str
    members: list[MemberRating]
    matches: int
    match_seconds: float
    command: str
    rating: RatingConfig = field(default_factory=RatingConfig)
    #: CPU time of the build (this process and its workers), None where part of it was not measured
    cpu_seconds: float | None = None

    @property
    def name(self) -> str:
        """``kerala-4p@1a2b3c4d``: the configuration and the version, as every report prints it."""
        return f"{self.spec.key}@{self.version}"

    def member(self, label: str) -> MemberRating:
        for m in self.members:
            if m.label == label:
                return m
        raise KeyError(f"{self.name} has no member {label!r}; members: {', '.join(m.label for m in self.members)}")

    def to_json(self) -> dict[str, Any]:
        return {"format": LADDER_FORMAT, "key": self.spec.key, "version": self.version,
                "game": self.spec.game, "num_players": self.spec.num_players, "options": dict(self.spec.options),
                "matches": self.matches, "match_seconds": round(self.match_seconds, 1), "command": self.command,
                "cpu_seconds": None if self.cpu_seconds is None else round(self.cpu_seconds, 1),
                "rating": self.rating.to_dict(), "members": [asdict(m) for m in self.members]}

    @classmethod
    def from_json(cls, d: dict[str, Any], source: str = "ladder") -> Ladder:
        try:
            if d["format"] != LADDER_FORMAT:
                raise ValueError(f"format {d['format']!r} (this version reads {LADDER_FORMAT})")
            spec = LadderSpec(d["game"], int(d["num_players"]), tuple(sorted(d["options"].items())))
            members = [MemberRating(str(m["label"]), str(m["spec"]), float(m["mu"]), float(m["sigma"]),
                                    int(m["games"]), float(m["win_rate"])) for m in d["members"]]
            return cls(spec, str(d["version"]), members, int(d["matches"]), float(d["match_seconds"]),
                       str(d["command"]), RatingConfig.from_dict(d["rating"]),
                       None if d.get("cpu_seconds") is None else float(d["cpu_seconds"]))
        except (KeyError, TypeError, ValueError, AttributeError) as e:
            raise ValueError(f"{source}: not a ladder file ({e})") from None

    def format(self) -> str:
        cpu = "not measured" if self.cpu_seconds is None else f"{self.cpu_seconds / 3600:.2f} CPU h"
        lines = [f"ladder {self.name}: {self.matches} matches, {cpu}, {self.match_seconds / 3600:.2f} h of matches",
                 f"{'member':<22} {'spec':<24} {'elo':>6} {'95% interval':>14} {'games':>6} {'win':>6}"]
        for m in sorted(self.members, key=lambda m: -m.mu):
            e, lo, hi = m.elo(self.rating)
            lines.append(f"{m.label:<22} {m.spec:<24} {e:6.0f} {f'[{lo:.0f},{hi:.0f}]':>14} {m.games:6d} "
                         f"{m.win_rate:6.3f}")
        return "\n".join(lines)


def markdown(ladders: list[Ladder]) -> str:
    """One Markdown table of ladders (member, spec, Elo, 95% interval, games), strongest member first."""
    rows = ["| ladder | member | spec | elo | 95% interval | games |", "|---|---|---|---:|---|---:|"]
    for lad in ladders:
        for m in sorted(lad.members, key=lambda m: -m.mu):
            e, lo, hi = m.elo(lad.rating)
            rows.append(f"| `{lad.name}` | {m.label} | `{m.spec}` | {e:.0f} | [{lo:.0f}, {hi:.0f}] | {m.games} |")
    return "\n".join(rows)


def _centre_radius(elo: tuple[float, float, float]) -> tuple[float, float]:
    e, lo, hi = elo
    return e, (hi - lo) / 2


def summary_markdown(ladders: list[Ladder]) -> str:
    """One row per ladder: each member's Elo and the half-width of its 95% interval (a dash where the
    configuration has no such member), the matches and the CPU hours the ratings cost; the README's table."""
    labels: list[str] = []
    for lad in ladders:
        labels += [m.label for m in lad.members if m.label not in labels]
    rows = ["| ladder | " + " | ".join(labels) + " | matches | CPU h |", "|---|" + "---:|" * (len(labels) + 2)]
    for lad in ladders:
        elo = {m.label: "{:.0f} ±{:.0f}".format(*_centre_radius(m.elo(lad.rating))) for m in lad.members}
        cpu = "-" if lad.cpu_seconds is None else f"{lad.cpu_seconds / 3600:.2f}"
        rows.append(f"| `{lad.name}` | " + " | ".join(elo.get(label, "-") for label in labels)
                    + f" | {lad.matches} | {cpu} |")
    return "\n".join(rows)


def ladder_path(spec: LadderSpec) -> Path:
    return DATA / f"{spec.key}.json"


def shipped_ladders() -> list[Ladder]:
    """Every ladder shipped with the package (current or not)."""
    return [Ladder.from_json(json.loads(p.read_text()), str(p)) for p in sorted(DATA.glob("*.json"))]


def load_ladder(game: str, num_players: int | None = None, options: dict[str, Any] | None = None) -> Ladder:
    """The shipped ladder of a configuration; ValueError if none is built or it is stale (with the command
    that rebuilds it)."""
    spec = find_spec(game, num_players, options)
    path = ladder_path(spec)
    rebuild = build_command(spec)
    if not path.exists():
        raise ValueError(f"ladder {spec.key}: no ratings shipped yet; build them with: {rebuild}")
    ladder = Ladder.from_json(json.loads(path.read_text()), str(path))
    current = spec.version(ladder.matches)
    if ladder.version != current:
        raise ValueError(f"ladder {spec.key}: the shipped ratings are version {ladder.version}, but the members or "
                         f"the environment changed (version {current}); rebuild with: {rebuild}")
    return ladder


def build_command(spec: LadderSpec, matches: int = BUILD_MATCHES) -> str:
    opts = "".join(f" -o {k}={v}" for k, v in spec.options)
    return f"meeplezoo ladder build {spec.game} --players {spec.num_players}{opts} --matches {matches}"


def build_ladder(spec: LadderSpec, db: str | Path, *, matches: int = BUILD_MATCHES, workers: int = 1,
                 progress: bool = True, write: bool = True) -> Ladder:
    """Rate the members of ``spec`` from a seeded league stored at ``db`` (resumable: an interrupted build
    continues from the matches stored there) and write the ladder file (package data) if ``write``."""
    db = str(db)
    log = Path(db + ".compute.json")
    runs = json.loads(log.read_text())["runs"] if log.exists() else []
    before_matches = len(read_league(db)[1]) if Path(db).exists() else 0
    before_cpu = _cpu_seconds()
    cfg = LeagueConfig(game=spec.game, num_players=spec.num_players, options=dict(spec.options),
                       agents=[f"{label}={s}" for label, s in spec.members()], seed=BUILD_SEED,
                       rating_lag=0)  # barrier rounds: the schedule the shipped ladders were rated with
    league = run_league(cfg, db, matches, resume=Path(db).exists(), workers=workers, progress=progress)
    try:
        stored = league.stored_matches(with_actions=False)
    finally:
        league.close()
    runs.append({"matches_before": before_matches, "matches_after": len(stored),
                 "cpu_seconds": round(_cpu_seconds() - before_cpu, 1), "workers": workers})
    log.write_text(json.dumps({"runs": runs}, indent=1) + "\n")
    measured = sum(r["matches_after"] - r["matches_before"] for r in runs) == len(stored)
    _, table, tracker = league_standings(db)
    members = []
    for label, s in spec.members():
        r = tracker.rating(label)
        members.append(MemberRating(label, s, r.mu, r.sigma, r.games, float(table.agent_stats[label].win_rate)))
    ladder = Ladder(spec, spec.version(matches), members, len(stored),
                    float(sum(m.duration_s or 0.0 for m in stored)), build_command(spec, matches),
                    cpu_seconds=sum(r["cpu_seconds"] for r in runs) if measured else None)
    if write:
        DATA.mkdir(parents=True, exist_ok=True)
        ladder_path(spec).write_text(json.dumps(ladder.to_json(), indent=1) + "\n")
    return ladder
