"""The ``train`` and ``evaluate`` subcommands (PPO), loaded lazily by ``meeplezoo.cli``.

    meeplezoo train kerala --players 2 --opponents random:1,heuristic:1 --self-play --timesteps 20000 --out runs/kerala
    meeplezoo evaluate runs/kerala/best.zip --against random,heuristic --games 200

Importing this module imports nothing heavy: torch and stable-baselines3 are
loaded when a command runs.
"""

from __future__ import annotations

import argparse
import json
from typing import Any


def _widths(text: str) -> list[int]:
    try:
        widths = [int(w) for w in text.split(",") if w.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated layer widths like 128,128, got {text!r}") from None
    if not widths or min(widths) < 1:
        raise argparse.ArgumentTypeError(f"layer widths must be positive, got {text!r}")
    return widths


def _search_option(text: str) -> tuple[str, Any]:
    from meeplezoo.agents.registry import parse_value

    if "=" not in text:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    k, v = text.split("=", 1)
    return k.strip(), parse_value(v.strip())


def _block_widths(text: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for part in text.split(","):
        k, sep, v = part.partition("=")
        try:
            out[k.strip()] = int(v)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected KEY=INT, got {part!r}") from None
        if not sep:
            raise argparse.ArgumentTypeError(f"expected KEY=INT, got {part!r}")
    return out


def _kind_weights(text: str) -> dict[str, float]:
    out: dict[str, float] = {}
    for part in text.split(","):
        kind, sep, w = part.strip().rpartition(":")
        try:
            out[kind] = float(w)
        except ValueError:
            raise ValueError(f"--exit-opponents: expected KIND:WEIGHT, got {part!r}") from None
        if not sep or not kind:
            raise ValueError(f"--exit-opponents: expected KIND:WEIGHT, got {part!r}")
    return out


def add_parser(subparsers: Any) -> None:
    from meeplezoo.cli import add_game_args, float_arg, int_arg, output_dir, output_file, seed_arg

    p = subparsers.add_parser("train", help="train a baseline: MaskablePPO on one seat, or expert iteration",
                              description="--algo ppo (default): MaskablePPO against weighted opponents (and itself "
                                          "with --self-play); writes best.zip, final.zip, eval.csv and TensorBoard "
                                          "logs.  --algo exit: expert iteration, a network trained on the visit "
                                          "counts of the search it guides (meeplezoo.training.exit); the same --out "
                                          "continues a run.  --algo distill: a network fine-tuned on the visit "
                                          "counts of a fixed teacher search playing the heuristic "
                                          "(meeplezoo.training.distill); resumable the same way.  --algo "
                                          "finetune: a network checkpoint (--init) improved by PPO's clipped "
                                          "policy gradient in games against --opponents "
                                          "(meeplezoo.training.finetune); resumable the same way.")
    add_game_args(p)
    p.add_argument("--algo", choices=("ppo", "exit", "distill", "finetune"), default="ppo",
                   help="training algorithm (default ppo)")
    ex = p.add_argument_group("expert iteration (--algo exit)")
    ex.add_argument("--iterations", type=int_arg(1), default=10, help="self-play + training iterations in all "
                    "(a continued run goes on to this many)")
    ex.add_argument("--games-per-iteration", type=int_arg(1), default=8, help="self-play games per iteration")
    ex.add_argument("--sims", type=int_arg(1), default=64, help="search simulations per expert decision")
    ex.add_argument("--workers", type=int_arg(1), default=1, help="self-play processes (or Ray CPUs)")
    ex.add_argument("--backend", choices=("process", "ray"), default="process",
                    help="self-play on a local process pool or as Ray tasks")
    ex.add_argument("--address", default=None, help="--backend ray: the cluster to join (e.g. auto)")
    ex.add_argument("--warm-start-games", type=int_arg(0), default=0,
                    help="heuristic games imitated before the first iteration")
    ex.add_argument("--warm-start-teacher", default="heuristic", metavar="SPEC",
                    help="who plays the warm-start games: heuristic (default) or a search spec, e.g. mcts:sims=200")
    ex.add_argument("--warm-start-epochs", type=int_arg(0), default=4, help="passes over the warm-start games")
    ex.add_argument("--leaf", choices=("network", "rollout"), default="network",
                    help="how the expert values leaves: the value head (default) or rollouts (--search-option)")
    ex.add_argument("--search-option", action="append", default=[], metavar="KEY=VALUE", type=_search_option,
                    help="an mcts option of every searching seat, e.g. rollout=heuristic, rollout_depth=20 (repeat)")
    ex.add_argument("--exit-opponents", default=None, metavar="KIND:W,...",
                    help="weights of the other seats' kinds: self, heuristic, snapshot "
                         "(default self:0.5,heuristic:0.25,snapshot:0.25)")
    ex.add_argument("--explore-moves", type=int_arg(0), default=8,
                    help="decisions per seat sampled from the visit counts before playing the most visited")
    ex.add_argument("--value-weight", type=float_arg(0), default=None,
                    help="weight of the value loss (default 1.0; finetune 0.5)")
    ex.add_argument("--width", type=int_arg(1), default=None,
                    help="hidden width of the flat layer and the trunk (default 128; distill from scratch: 256)")
    ex.add_argument("--channels", type=int_arg(1), default=32, help="channels of the board convolutions")
    ex.add_argument("--conv-layers", type=int_arg(1), default=2, help="3x3 convolutions over each board block")
    ex.add_argument("--board-channels", type=int_arg(0), default=0,
                    help="0: average each board over its cells; N: keep N channels of every cell (Kerala's "
                         "placements need to know where)")
    ex.add_argument("--trunk-layers", type=int_arg(1), default=1, help="ReLU layers of the trunk (default 1)")
    ex.add_argument("--action-hidden", type=int_arg(0), default=0,
                    help="exit and distill from scratch: an action head of this width, scoring each action the "
                         "observation names inputs for "
                         "(Kerala with -o elephant_view=true: every pick from its tile and target cells); 0: none")
    ex.add_argument("--eval-every", type=int_arg(1), default=None,
                    help="iterations (finetune: updates) between evaluations (default 2; finetune 5)")
    ex.add_argument("--buffer-size", type=int_arg(1), default=20_000, help="samples kept for training")
    ex.add_argument("--epochs", type=int_arg(0), default=None,
                    help="passes over the buffer per iteration (default 2; distill: passes over the samples, 4)")
    di = p.add_argument_group("distillation (--algo distill; it also reads --workers, --backend, --address, --epochs, "
                              "--lr, --batch-size, --width, --seed, --time-limit)")
    di.add_argument("--teacher", default="mcts:sims=50", metavar="SPEC",
                    help="the search whose visit counts are the targets (default mcts:sims=50, the tuned search)")
    di.add_argument("--opponent", default="heuristic", metavar="SPEC", help="who the teacher plays (default heuristic)")
    di.add_argument("--games", type=int_arg(1), default=400, help="teacher games to have generated (default 400)")
    di.add_argument("--chunk", type=int_arg(1), default=10, help="games per chunk file (default 10)")
    di.add_argument("--init", default="pretrained", metavar="CHECKPOINT",
                    help="distill and finetune: the network they start from: pretrained (the shipped one), a "
                         "checkpoint file, or (distill) scratch")
    di.add_argument("--holdout", type=int_arg(2), default=10, help="every N-th chunk is held out (default 10)")
    di.add_argument("--generate-only", action="store_true", help="generate the chunks, do not fit")
    di.add_argument("--behaviour", default="", metavar="SPEC",
                    help="DAgger: this agent (e.g. net:PATH) moves in the teacher's seat, the teacher only labels")
    di.add_argument("--extra-data", action="append", default=[], metavar="DIR",
                    help="another distill run directory whose chunks are fit too (repeatable)")
    ft = p.add_argument_group("fine-tuning (--algo finetune; it also reads --init, --opponents (default heuristic:1), "
                              "--workers, --lr, --epochs, --batch-size, --ent-coef, --value-weight, --reward-mode "
                              "(win, or score: the lead over the best opponent), --eval-every, --eval-games, "
                              "--eval-against, --seed, --time-limit)")
    ft.add_argument("--updates", type=int_arg(0), default=50, help="PPO updates in all (a continued run goes on to "
                    "this many)")
    ft.add_argument("--games-per-update", type=int_arg(1), default=64, help="games played for each update")
    ft.add_argument("--clip", type=float_arg(0, lo_open=True), default=0.2, help="PPO's ratio clip (default 0.2)")
    ft.add_argument("--temperature", type=float_arg(0, lo_open=True), default=1.0,
                    help="the learner plays softmax(logits / T); below 1 its games are closer to its greedy play")
    p.add_argument("--opponents", default=None, metavar="SPEC:W,...",
                   help="weighted opponent specs, e.g. random:1,heuristic:2,mcts:sims=50:1 (the weight is the last "
                        "':' part when it is a number; default random:1,heuristic:1)")
    p.add_argument("--self-play", action="store_true", help="add frozen snapshots of the learner to the opponents")
    p.add_argument("--self-play-weight", type=float_arg(0), default=None,
                   help="total weight of the snapshots (default: the fixed opponents' total)")
    p.add_argument("--keep-last", type=int_arg(1), default=5, help="snapshots kept in the pool (plus the best)")
    p.add_argument("--snapshot-freq", type=int_arg(1), default=None,
                   help="steps between snapshots (default: eval freq)")
    p.add_argument("--timesteps", type=int_arg(1), default=20_000, help="learner decisions to train for")
    p.add_argument("--time-limit", type=float_arg(0, lo_open=True), default=None, metavar="SECONDS",
                   help="stop training after this")
    p.add_argument("--out", default=None, metavar="DIR", type=output_dir, help="output folder (default runs/GAME)")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--n-envs", type=int_arg(1), default=2, help="parallel environments")
    p.add_argument("--vec", choices=("auto", "subproc", "dummy"), default="auto",
                   help="SubprocVecEnv or DummyVecEnv (auto: subproc when there are 2+ cores and envs)")
    p.add_argument("--reward-mode", choices=("win", "rank", "score"), default="win")
    p.add_argument("--eval-against", default=None, metavar="SPECS",
                   help="comma-separated evaluation opponents (default random,heuristic)")
    p.add_argument("--eval-games", type=int_arg(0), default=50, help="games per opponent at each evaluation (0: off)")
    p.add_argument("--eval-freq", type=int_arg(1), default=None,
                   help="steps between evaluations (default: timesteps/5)")
    p.add_argument("--eval-every-seconds", type=float_arg(0, lo_open=True), default=None, metavar="S",
                   help="evaluate by the clock instead (useful with --time-limit)")
    p.add_argument("--final-eval-games", type=int_arg(0), default=100, help="games per opponent to evaluate best.zip")
    p.add_argument("--net-arch", type=_widths, default=None, metavar="W,W",
                   help="hidden widths: first shared by actor and critic, the rest each's own")
    p.add_argument("--activation", choices=("tanh", "relu"), default="tanh")
    p.add_argument("--blocks", type=_block_widths, default=None, metavar="KEY=N,...",
                   help="--net blocks: its widths, e.g. channels=16,conv_layers=1,board_channels=2,trunk_hidden=256")
    p.add_argument("--net", choices=("mlp", "blocks"), default="mlp",
                   help="PPO network: mlp (--net-arch over the flat vector) or blocks (the block network: "
                        "convolutions over board blocks, as the expert-iteration networks)")
    p.add_argument("--lr", type=float_arg(0, lo_open=True), default=None, help="learning rate (default 3e-4)")
    p.add_argument("--n-epochs", type=int_arg(1), default=None, help="PPO epochs per update (default 4)")
    p.add_argument("--rollout-steps", type=int_arg(1), default=None,
                   help="transitions per update, all envs (default 2048)")
    p.add_argument("--batch-size", type=int_arg(1), default=None, help="minibatch size (default 256)")
    p.add_argument("--ent-coef", type=float_arg(0), default=None, help="entropy bonus (default 0.01)")
    p.add_argument("--gamma", type=float_arg(0, 1, lo_open=True), default=None, help="discount (default 0.995)")
    p.add_argument("--torch-threads", type=int_arg(1), default=1, help="torch threads for the updates (default 1)")
    p.add_argument("--progress", action="store_true", help="show SB3's progress bar")
    p.add_argument("--no-tensorboard", action="store_true", help="do not write TensorBoard logs")
    p.add_argument("--quiet", action="store_true", help="print only the final evaluation")
    p.set_defaults(func=cmd_train)

    p = subparsers.add_parser("evaluate", help="play a PPO checkpoint against other agents, seats rotated")
    p.add_argument("checkpoint", help="a .zip written by `meeplezoo train`, or sb3:PATH for a plain "
                                      "stable-baselines3 model (then --game and --players say what it plays)")
    p.add_argument("--game", default=None, help="sb3:PATH only: the game id")
    p.add_argument("--players", type=int_arg(1), default=None, help="sb3:PATH only: the number of players")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--against", default=None, metavar="SPECS",
                   help="comma-separated opponent specs (default random,heuristic)")
    p.add_argument("--games", type=int_arg(1), default=200, help="games per opponent")
    p.add_argument("--seed", type=seed_arg, default=0)
    p.add_argument("--sampled", action="store_true", help="sample actions from the policy instead of the argmax")
    p.add_argument("--json", metavar="FILE", type=output_file, help="also write the results as JSON")
    p.set_defaults(func=cmd_evaluate)


def exit_config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~meeplezoo.training.exit.ExItConfig` that ``meeplezoo train --algo exit`` runs."""
    from meeplezoo.cli import game_from_args, split_agents
    from meeplezoo.training.exit import ExItConfig

    game = game_from_args(args)
    extra: dict[str, Any] = {k: v for k, v in {"lr": args.lr, "batch_size": args.batch_size}.items()
                             if v is not None}
    if args.eval_against:
        extra["eval_against"] = tuple(split_agents(args.eval_against))
    if args.exit_opponents:
        extra["opponents"] = _kind_weights(args.exit_opponents)
    if args.search_option:
        extra["search_options"] = dict(args.search_option)
    return ExItConfig(game=game.name, num_players=game.num_players, options=dict(game.non_default_options),
                      iterations=args.iterations, games_per_iteration=args.games_per_iteration, sims=args.sims,
                      warm_start_games=args.warm_start_games, warm_start_teacher=args.warm_start_teacher,
                      eval_every=2 if args.eval_every is None else args.eval_every,
                      warm_start_epochs=args.warm_start_epochs, leaf=args.leaf,
                      explore_moves=args.explore_moves,
                      value_weight=1.0 if args.value_weight is None else args.value_weight,
                      flat_hidden=args.width or 128, trunk_hidden=args.width or 128, channels=args.channels,
                      conv_layers=args.conv_layers, board_channels=args.board_channels,
                      trunk_layers=args.trunk_layers, action_hidden=args.action_hidden,
                      eval_games=args.eval_games, buffer_size=args.buffer_size,
                      epochs=2 if args.epochs is None else args.epochs,
                      reward_mode=args.reward_mode if args.reward_mode != "score" else "win", seed=args.seed,
                      **extra)


def cmd_train_exit(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from meeplezoo.registry import make_game
    from meeplezoo.training.exit import train_exit

    cfg = exit_config_from_args(args)
    game = make_game(cfg.game, cfg.num_players, **cfg.options)
    out = args.out or f"runs/exit/{game.name}"
    if not args.quiet:
        print(f"expert iteration on {game.pretty_name} ({game.num_players} players), {cfg.iterations} iterations "
              f"of {cfg.games_per_iteration} games at {cfg.sims} simulations -> {out}", flush=True)
    kw = {k: v for k, v in asdict(cfg).items() if k != "game"}
    kw["eval_against"] = tuple(cfg.eval_against)
    result = train_exit(game.name, out, workers=args.workers, backend=args.backend, address=args.address,
                        time_limit=args.time_limit, torch_threads=args.torch_threads,
                        tensorboard=not args.no_tensorboard, verbose=0 if args.quiet else 1, **kw)
    print(result.summary())
    return 0


def distill_config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~meeplezoo.training.distill.DistillConfig` that ``meeplezoo train --algo distill`` runs."""
    from meeplezoo.cli import game_from_args
    from meeplezoo.training.distill import DistillConfig

    game = game_from_args(args)
    extra: dict[str, Any] = {k: v for k, v in {"lr": args.lr, "batch_size": args.batch_size}.items()
                             if v is not None}
    if args.width is not None:
        extra["width"] = args.width
    if args.epochs is not None:
        extra["epochs"] = args.epochs
    if args.init == "scratch":  # the other widths shape only a network built here
        from meeplezoo.training.exit import ARCHITECTURE_FLAGS

        extra.update({name: getattr(args, name) for name, _ in ARCHITECTURE_FLAGS})
    return DistillConfig(game=game.name, num_players=game.num_players, options=dict(game.non_default_options),
                         teacher=args.teacher, opponent=args.opponent, games=args.games, chunk=args.chunk,
                         seed=args.seed, init=args.init, holdout=args.holdout, behaviour=args.behaviour,
                         extra_data=tuple(args.extra_data), **extra)


def cmd_train_distill(args: argparse.Namespace) -> int:
    from meeplezoo.training.distill import fit, generate

    cfg = distill_config_from_args(args)
    out = args.out or f"runs/distill/{cfg.game}"
    verbose = 0 if args.quiet else 1
    if not args.quiet:
        print(f"distillation of {cfg.teacher} (against {cfg.opponent}) into {cfg.init}: {cfg.games} games "
              f"-> {out}", flush=True)
    have = generate(cfg, out, workers=args.workers, backend=args.backend, address=args.address,
                    time_limit=args.time_limit, verbose=verbose)
    if args.generate_only:
        print(f"{out}: {have} chunks of {cfg.chunk} games")
        return 0
    print(fit(cfg, out, torch_threads=args.torch_threads, verbose=verbose).summary())
    return 0


def finetune_config_from_args(args: argparse.Namespace) -> Any:
    """The :class:`~meeplezoo.training.finetune.FinetuneConfig` that ``meeplezoo train --algo finetune`` runs."""
    from meeplezoo.cli import game_from_args, split_agents
    from meeplezoo.training.finetune import FinetuneConfig
    from meeplezoo.training.selfplay import parse_weighted_specs

    game = game_from_args(args)
    if args.reward_mode == "rank":
        raise ValueError("--algo finetune: --reward-mode must be win or score")
    extra: dict[str, Any] = {k: v for k, v in {"lr": args.lr, "batch_size": args.batch_size, "epochs": args.epochs,
                                               "ent_coef": args.ent_coef, "value_coef": args.value_weight}.items()
                             if v is not None}
    if args.eval_against:
        extra["eval_against"] = tuple(split_agents(args.eval_against))
    if args.opponents:
        extra["opponents"] = parse_weighted_specs(args.opponents)
    return FinetuneConfig(game=game.name, num_players=game.num_players, options=dict(game.non_default_options),
                          init=args.init, updates=args.updates, games_per_update=args.games_per_update,
                          clip=args.clip, temperature=args.temperature,
                          reward="margin" if args.reward_mode == "score" else "win",
                          eval_every=5 if args.eval_every is None else args.eval_every, eval_games=args.eval_games,
                          seed=args.seed, **extra)


def cmd_train_finetune(args: argparse.Namespace) -> int:
    from dataclasses import asdict

    from meeplezoo.training.finetune import finetune

    cfg = finetune_config_from_args(args)
    out = args.out or f"runs/finetune/{cfg.game}"
    if not args.quiet:
        print(f"fine-tuning {cfg.init} against {', '.join(cfg.opponents)}: {cfg.updates} updates of "
              f"{cfg.games_per_update} games -> {out}", flush=True)
    kw = {k: v for k, v in asdict(cfg).items() if k != "game"}
    kw["eval_against"] = tuple(cfg.eval_against)
    result = finetune(cfg.game, out, workers=args.workers, time_limit=args.time_limit,
                      torch_threads=args.torch_threads, tensorboard=not args.no_tensorboard,
                      verbose=0 if args.quiet else 1, **kw)
    print(result.summary())
    return 0


def cmd_train(args: argparse.Namespace) -> int:
    from meeplezoo.cli import game_from_args, split_agents

    if args.algo == "finetune":
        return cmd_train_finetune(args)
    if args.algo == "distill":
        return cmd_train_distill(args)
    if args.algo == "exit":
        if args.reward_mode == "score":
            raise ValueError("--algo exit: --reward-mode must be win or rank (the value head is tanh)")
        return cmd_train_exit(args)
    from meeplezoo.training.ppo import train

    game = game_from_args(args)
    overrides = {k: v for k, v in {"learning_rate": args.lr, "n_epochs": args.n_epochs,
                                   "rollout_steps": args.rollout_steps, "batch_size": args.batch_size,
                                   "ent_coef": args.ent_coef, "gamma": args.gamma}.items() if v is not None}
    out = args.out or f"runs/{game.name}"
    if not args.quiet:
        print(f"training MaskablePPO on {game.pretty_name} ({game.num_players} players) for {args.timesteps} steps "
              f"-> {out}  (tensorboard --logdir {out}/tb)", flush=True)
    result = train(
        game, None, opponents=args.opponents, timesteps=args.timesteps, out_dir=out, self_play=args.self_play,
        self_play_weight=args.self_play_weight, keep_last=args.keep_last, snapshot_freq=args.snapshot_freq,
        eval_against=split_agents(args.eval_against) if args.eval_against else None,
        eval_games=args.eval_games, eval_freq=args.eval_freq,
        eval_interval_s=args.eval_every_seconds, final_eval_games=args.final_eval_games,
        seed=args.seed, n_envs=args.n_envs, vec=args.vec, net_arch=args.net_arch, activation=args.activation,
        net=args.net, blocks=args.blocks,
        reward_mode=args.reward_mode, time_limit=args.time_limit, torch_threads=args.torch_threads,
        progress=args.progress, tensorboard=not args.no_tensorboard, verbose=0 if args.quiet else 1, **overrides,
    )
    print(result.summary())
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from meeplezoo.agents.ppo import PPOAgent
    from meeplezoo.cli import split_agents
    from meeplezoo.training.ppo import default_eval_against, evaluate, format_evaluation

    if args.games < 1:
        raise ValueError(f"--games must be at least 1, got {args.games}")
    if args.checkpoint.startswith("sb3:"):
        from meeplezoo.agents.sb3 import SB3Agent

        agent = SB3Agent.load(args.checkpoint[4:], args.game, args.players, seed=args.seed,
                              deterministic=not args.sampled)
        meta = {"training_steps": int(getattr(agent.model, "num_timesteps", 0))}
    else:
        agent = PPOAgent.load(args.checkpoint, seed=args.seed, deterministic=not args.sampled)
        meta = agent.metadata
    game = agent.game
    against = split_agents(args.against) if args.against else default_eval_against(game)
    opts = ", ".join(f"{k}={v!r}" for k, v in game.non_default_options.items())
    print(f"{args.checkpoint}: {game.pretty_name}, {game.num_players} players{', ' + opts if opts else ''}, "
          f"{meta.get('training_steps', 0)} training steps; {args.games} games per opponent, seats rotated, "
          f"{'sampled' if args.sampled else 'greedy'} actions")
    results = evaluate(agent, game, against, args.games, seed=args.seed, progress=not args.no_progress)
    print(format_evaluation(results))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({spec: {"games": st.games, "wins": st.wins, "win_rate": st.win_rate, "interval": st.interval,
                              "mean_score": st.mean_score, "mean_margin": st.mean_margin}
                       for spec, st in results.items()}, f, indent=2)
    return 0
