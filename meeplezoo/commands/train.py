"""``meeplezoo train GAME --algo ALGO ...``: the trainers, one section per algorithm, flags from their knobs.

    meeplezoo train kerala --players 2 --opponents random:1,heuristic:1 --self-play --timesteps 20000
    meeplezoo train haus_der_sonne --algo exit --iterations 20 --out runs/exit/haus_der_sonne
    meeplezoo train haus_der_sonne --algo distill --teacher mcts:sims=50 --games 1200
    meeplezoo train haus_der_sonne --algo finetune --init pretrained --opponents heuristic:1 --updates 100

Every flag of an algorithm is a knob of its config (:class:`~meeplezoo.training.ppo_config.PPOConfig`,
:class:`~meeplezoo.training.exit.ExItConfig`, :class:`~meeplezoo.training.distill.DistillConfig`,
:class:`~meeplezoo.training.finetune.FinetuneConfig`): its help, range and default come from the
declaration, and a config's :meth:`~meeplezoo.training.run.TrainerConfig.command` gives back the line
that builds it.  A flag that several algorithms have (``--lr``, ``--epochs``, ``--eval-games``...) is one
flag whose default is each algorithm's own; a flag of another algorithm than ``--algo`` is refused.
Three flags are read the way they always were: ``--width`` sets expert iteration's two hidden widths,
``--reward-mode score`` is fine-tuning's ``margin``, and distillation keeps the widths of a network it
does not build (``--init`` other than ``scratch``).  torch and stable-baselines3 load when a run starts.
"""

from __future__ import annotations

import argparse
from typing import Any

from meeplezoo.knobs import Knob
from meeplezoo.training import distill, exit, finetune, ppo_config
from meeplezoo.training.executor import EXECUTION_KNOBS
from meeplezoo.training.run import ARCHITECTURE, GAME_KNOBS, RUN_KNOBS, TrainerConfig

from .common import add_game_args, game_from_args, output_dir

#: --algo -> its config class
ALGOS: dict[str, type[TrainerConfig]] = {"ppo": ppo_config.PPOConfig, "exit": exit.ExItConfig,
                                         "distill": distill.DistillConfig, "finetune": finetune.FinetuneConfig}
#: what each algorithm is, for the help
ABOUT = {
    "ppo": "MaskablePPO on one seat against weighted opponents (and itself with --self-play); writes best.zip, "
           "final.zip, eval.csv and TensorBoard logs",
    "exit": "expert iteration: a network trained on the visit counts of the search it guides; the same --out "
            "continues a run",
    "distill": "a network fitted to the visit counts of a fixed teacher search playing the heuristic; resumable",
    "finetune": "a network checkpoint (--init) improved by PPO's clipped policy gradient in games against "
                "--opponents; resumable",
}
#: the run settings each algorithm reads besides its config
RUNS_ON = {"ppo": ("time_limit", "torch_threads", "device"),
           "exit": ("time_limit", "torch_threads", "device", "workers", "backend", "address"),
           "distill": ("time_limit", "torch_threads", "device", "workers", "backend", "address"),
           "finetune": ("time_limit", "torch_threads", "device", "workers")}
#: flags read for an algorithm that has no knob of that name (see the module's doc)
ALIASES = {("exit", "--width"): ("flat_hidden", "trunk_hidden")}
_UNSET: Any = object()


def flag_table() -> dict[str, list[tuple[str, Knob]]]:
    """Flag -> the (algorithm, knob) pairs it sets, in the order of :data:`ALGOS`."""
    flags: dict[str, list[tuple[str, Knob]]] = {}
    for algo, cls in ALGOS.items():
        for k in cls.knobs():
            if k.cli and k.name not in GAME_KNOBS:
                flags.setdefault(k.flag_name, []).append((algo, k))
    return flags


class _AnyOf:
    """argparse ``type=`` of a flag several algorithms share: the value one of them accepts (the algorithm
    chosen checks it again when its config is built); otherwise the first one's error, naming the flag."""

    def __init__(self, owners: list[tuple[str, Knob]]) -> None:
        self.owners = owners
        first = owners[0][1]
        self.__name__ = {int: "integer", float: "number"}.get(first.type, first.name)

    def __call__(self, text: str) -> Any:
        errors = []
        for algo, k in self.owners:
            try:
                return k.from_text(text, ALGOS[algo].who)
            except ValueError as e:
                errors.append(str(e))
        raise argparse.ArgumentTypeError(errors[0])


def _help(owners: list[tuple[str, Knob]]) -> str:
    first = owners[0][1]
    defaults = {algo: k.to_text(k.default) for algo, k in owners}
    shown = next(iter(defaults.values())) if len(set(defaults.values())) == 1 else \
        ", ".join(f"{algo} {d}" for algo, d in defaults.items())
    used = "" if len(owners) == len(ALGOS) else f" [{', '.join(a for a, _ in owners)}]"
    return f"{first.doc} ({first.describe()}; default: {shown}){used}".replace("%", "%%")


def add_parser(sub: Any) -> None:
    """Register ``train``: the game arguments, the run's flags and one section per algorithm."""
    p = sub.add_parser("train", help="train a network or policy: PPO, expert iteration, distillation, fine-tuning",
                       description="; ".join(f"--algo {a}: {t}" for a, t in ABOUT.items()) + ".")
    add_game_args(p)
    p.add_argument("--algo", choices=tuple(ALGOS), default="ppo", help="training algorithm (default ppo)")
    run = p.add_argument_group("the run")
    run.add_argument("--out", default=None, metavar="DIR", type=output_dir,
                     help="output folder (default runs/GAME for ppo, runs/ALGO/GAME otherwise)")
    RUN_KNOBS.add_arguments(run)
    EXECUTION_KNOBS.add_arguments(run)
    run.add_argument("--progress", action="store_true", help="ppo: show SB3's progress bar")
    run.add_argument("--no-tensorboard", action="store_true", help="do not write TensorBoard logs")
    run.add_argument("--quiet", action="store_true", help="print only the result")
    run.add_argument("--generate-only", action="store_true", help="distill: generate the chunks, do not fit")
    groups = {algo: p.add_argument_group(f"--algo {algo}") for algo in ALGOS}
    for flag, owners in flag_table().items():
        k = owners[0][1]
        group = groups[owners[0][0]]
        if k.repeat:
            group.add_argument(flag, dest="flag" + flag, default=None, action="append",
                               type=k.arg_type(ALGOS[owners[0][0]].who),
                               metavar=k.metavar or ("KEY=VALUE" if k.type is dict else k.name.upper()),
                               help=_help(owners) + "; repeatable")
            continue
        extra: dict[str, Any] = {"nargs": "?", "const": True} if k.type is bool else {}
        group.add_argument(flag, dest="flag" + flag, default=_UNSET, type=_AnyOf(owners),
                           metavar=k.metavar or k.name.upper(), help=_help(owners), **extra)
    p.set_defaults(func=run_train)


def config_from_args(args: argparse.Namespace) -> TrainerConfig:
    """The config ``meeplezoo train`` runs for the parsed ``args`` (its ``--algo``)."""
    algo, cls = args.algo, ALGOS[args.algo]
    game = game_from_args(args)
    values: dict[str, Any] = {"game": game.name, "num_players": game.num_players,
                              "options": dict(game.non_default_options)}
    mine = {k.flag_name: k for k in cls.knobs() if k.cli and k.name not in GAME_KNOBS}
    for flag in flag_table():
        given = getattr(args, "flag" + flag, _UNSET)
        if given is _UNSET or given is None:
            continue
        if (algo, flag) in ALIASES:
            values.update(dict.fromkeys(ALIASES[algo, flag], given))
        elif flag not in mine:
            raise ValueError(f"{flag} is not a setting of --algo {algo}")
        elif mine[flag].repeat:
            values[mine[flag].name] = dict(given) if mine[flag].type is dict else tuple(given)
        else:
            values[mine[flag].name] = given
    if algo == "finetune" and values.get("reward") == "score":
        values["reward"] = "margin"
    if algo == "distill" and values.get("init", "pretrained") != "scratch":  # a checkpoint keeps its shape
        for name in ARCHITECTURE:
            values.pop(name, None)
    return cls(**values)


def run_settings(args: argparse.Namespace) -> dict[str, Any]:
    """The run's settings (time limit, threads, workers...) for ``--algo``; others given are refused."""
    given = {**RUN_KNOBS.from_args(args, given_only=True), **EXECUTION_KNOBS.from_args(args, given_only=True)}
    bad = sorted(set(given) - set(RUNS_ON[args.algo]))
    if bad:
        raise ValueError(f"--algo {args.algo} does not read {', '.join('--' + b.replace('_', '-') for b in bad)}")
    settings = {**RUN_KNOBS.defaults(), **EXECUTION_KNOBS.defaults(), **given}
    return {k: v for k, v in settings.items() if k in RUNS_ON[args.algo]}


def run_train(args: argparse.Namespace) -> int:
    """Build the config, say what will run, and run it."""
    cfg = config_from_args(args)
    settings = run_settings(args)
    out = args.out or (f"runs/{cfg.game}" if args.algo == "ppo" else f"runs/{args.algo}/{cfg.game}")
    verbose = 0 if args.quiet else 1
    tensorboard = not args.no_tensorboard
    if args.algo == "ppo":
        return _ppo(cfg, out, settings, args, verbose)
    if args.algo == "distill":
        return _distill(cfg, out, settings, args, verbose)
    if not args.quiet:
        print(_starting(cfg, out), flush=True)
    if args.algo == "exit":
        result: Any = exit.ExItTrainer(cfg, out, tensorboard=tensorboard, verbose=verbose, **_trainer(settings)).run(
            time_limit=settings["time_limit"])
    else:
        result = finetune.FinetuneTrainer(cfg, out, tensorboard=tensorboard, verbose=verbose,
                                          **_trainer(settings)).run(time_limit=settings["time_limit"])
    print(result.summary())
    return 0


def _starting(cfg: Any, out: str) -> str:
    """The line that says what an expert-iteration or fine-tuning run is about to do."""
    if cfg.algo == "exit":
        game = cfg.make_game()
        return (f"expert iteration on {game.pretty_name} ({game.num_players} players), {cfg.iterations} iterations "
                f"of {cfg.games_per_iteration} games at {cfg.sims} simulations -> {out}")
    return (f"fine-tuning {cfg.init} against {', '.join(cfg.opponents)}: {cfg.updates} updates of "
            f"{cfg.games_per_update} games -> {out}")


def _trainer(settings: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in settings.items() if k != "time_limit"}


def _distill(cfg: Any, out: str, settings: dict[str, Any], args: argparse.Namespace, verbose: int) -> int:
    if verbose:
        print(f"distillation of {cfg.teacher} (against {cfg.opponent}) into {cfg.init}: {cfg.games} games "
              f"-> {out}", flush=True)
    have = distill.generate(cfg, out, workers=settings["workers"], backend=settings["backend"],
                            address=settings["address"], time_limit=settings["time_limit"], verbose=verbose)
    if args.generate_only:
        print(f"{out}: {have} chunks of {cfg.chunk} games")
        return 0
    print(distill.fit(cfg, out, torch_threads=settings["torch_threads"], device=settings["device"],
                      verbose=verbose).summary())
    return 0


def _ppo(cfg: Any, out: str, settings: dict[str, Any], args: argparse.Namespace, verbose: int) -> int:
    from meeplezoo.training import ppo  # torch and stable-baselines3: loaded when a PPO run starts

    game = game_from_args(args)
    if verbose:
        print(f"training MaskablePPO on {game.pretty_name} ({game.num_players} players) for {cfg.timesteps} steps "
              f"-> {out}  (tensorboard --logdir {out}/tb)", flush=True)
    result = ppo.train_config(cfg, out, game=game, progress=args.progress, tensorboard=not args.no_tensorboard,
                              verbose=verbose, **settings)
    print(result.summary())
    return 0
