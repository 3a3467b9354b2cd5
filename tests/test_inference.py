"""Network evaluation in torch (training/inference.py, training/torch_net.py) and the trainers' ``device``.

The torch network computes on the CPU what the numpy network computes, for every shipped network on
positions of real games, and stands in for it in the search and as an agent; bad settings, float16 on the
CPU and a GPU that is not there are refused by name; the numpy path loads no torch; the learner and tiny
expert-iteration, distillation and fine-tuning runs train on ``device="cpu"``; ``trainer.pt`` holds CPU
tensors.  The CUDA tests run only where torch sees a GPU.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from meeplezoo.agents.network import NetworkAgent, NetworkEvaluator, PolicyValueNet, masked_softmax
from meeplezoo.agents.pretrained import available
from meeplezoo.cli import main
from meeplezoo.training.inference import INFERENCE_KNOBS, inference_net, resolve_device

torch = pytest.importorskip("torch")

from meeplezoo.training.distill import DistillConfig, distill  # noqa: E402
from meeplezoo.training.exit import train_exit  # noqa: E402
from meeplezoo.training.finetune import finetune  # noqa: E402
from meeplezoo.training.learner import Learner  # noqa: E402
from meeplezoo.training.torch_net import TorchNet  # noqa: E402

CUDA = torch.cuda.is_available()
needs_cuda = pytest.mark.skipif(not CUDA, reason="torch sees no GPU")
#: the shipped block networks (a seat network has its own torch twin, ``training/seatnet.py``, tested apart)
SHIPPED = sorted(str(c["path"]) for c in available() if c["num_players"] == 2 and c["architecture"] != "seatnet")
SMALL = {"channels": 4, "conv_layers": 1, "flat_hidden": 16, "trunk_hidden": 16}


def _positions(net: PolicyValueNet, n: int = 48, seed: int = 0) -> tuple[list, np.ndarray, np.ndarray]:
    """States of random games in ``net``'s game, their observations by the player to move and legal masks."""
    rng = np.random.default_rng(seed)
    states, obs, masks = [], [], []
    game_seed = seed
    while len(states) < n:
        state = net.game.new_state(game_seed)
        game_seed += 1
        while not state.is_terminal() and len(states) < n:
            states.append(state.clone())
            obs.append(net.observe(state, state.current_player))
            masks.append(state.legal_mask())
            state.apply(int(rng.choice(np.flatnonzero(state.legal_mask()))))
    return states, np.stack(obs), np.stack(masks)


def _same(a: PolicyValueNet, b: PolicyValueNet, obs: np.ndarray, masks: np.ndarray, atol: float) -> None:
    la, va = a.forward(obs)
    lb, vb = b.forward(obs)
    assert lb.dtype == np.float32 and lb.shape == la.shape and vb.shape == va.shape
    np.testing.assert_allclose(masked_softmax(lb, masks), masked_softmax(la, masks), atol=atol)
    np.testing.assert_allclose(vb, va, atol=atol)


@pytest.fixture(scope="module", params=SHIPPED, ids=lambda p: p.rsplit("/", 1)[-1])
def shipped(request) -> tuple[PolicyValueNet, list, np.ndarray, np.ndarray]:
    net = PolicyValueNet.load(request.param)
    return (net, *_positions(net))


# -- the torch network --------------------------------------------------------------------------------------------
def test_every_shipped_network_gives_the_same_priors_and_values_in_torch_on_the_cpu(shipped):
    net, states, obs, masks = shipped
    tnet = inference_net(net, "torch")
    assert isinstance(tnet, TorchNet) and str(tnet.device) == "cpu" and tnet.precision == "float32"
    _same(net, tnet, obs, masks, 1e-5)
    one_l, one_v = tnet.forward(obs[0])  # one observation: a batch of one, as the numpy network
    np.testing.assert_allclose(one_l, net.forward(obs[0])[0], atol=1e-4)
    np.testing.assert_allclose(tnet.features(obs), net.features(obs), atol=1e-4)
    np.testing.assert_allclose(tnet.policy(obs, masks), net.policy(obs, masks), atol=1e-5)


def test_the_torch_network_stands_in_for_the_numpy_one_in_the_search_and_as_an_agent(shipped, tmp_path):
    net, states, obs, masks = shipped
    tnet = inference_net(net, "torch")
    p_np, v_np = NetworkEvaluator(net).evaluate(states[:16])
    p_t, v_t = NetworkEvaluator(tnet).evaluate(states[:16])
    np.testing.assert_allclose(np.stack(p_t), np.stack(p_np), atol=1e-5)
    np.testing.assert_allclose(np.stack(v_t), np.stack(v_np), atol=1e-5)
    a, b = NetworkAgent(net), NetworkAgent(tnet)
    for s in states[:8]:
        mask = s.legal_mask()
        o = net.observe(s, s.current_player)
        assert b.act(o, mask, state=s) == a.act(o, mask, state=s)
    back = PolicyValueNet.load(tnet.save(tmp_path / "again.zip"))  # the same weights, saved as numpy
    assert all(np.array_equal(back.params[k], net.params[k]) for k in net.params)


def test_bfloat16_runs_on_the_cpu_close_to_float32(shipped):
    net, _states, obs, masks = shipped
    half = inference_net(net, "torch", precision="bfloat16")
    assert half.module.policy.weight.dtype == torch.bfloat16
    _same(net, half, obs, masks, 0.1)


def test_numpy_on_the_cpu_is_the_network_itself():
    net = PolicyValueNet.load(SHIPPED[0])
    assert inference_net(net) is net and inference_net(net, "numpy", "cpu", "float32") is net
    back = inference_net(inference_net(net, "torch"), "numpy")
    assert type(back) is PolicyValueNet and back.params.keys() == net.params.keys()


def test_the_numpy_path_loads_no_torch():
    code = ("import sys; from meeplezoo.agents.network import load_network; "
            "from meeplezoo.agents.pretrained import checkpoint_path; "
            "from meeplezoo.training.inference import inference_net, resolve_device; "
            "net = load_network(checkpoint_path('hawaii', 2)); "
            "assert inference_net(net, device='cpu') is net and resolve_device('cpu') == 'cpu'; "
            "print('torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "False"


# -- settings ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("kw", "message"), [
    ({"backend": "jax"}, "inference: inference must be one of numpy, torch, got 'jax'"),
    ({"device": "gpu"}, "inference: device must be cpu, cuda, cuda:N or auto, got 'gpu'"),
    ({"device": "cuda:x"}, "inference: device must be cpu, cuda, cuda:N or auto, got 'cuda:x'"),
    ({"device": 0}, "inference: device must be cpu, cuda, cuda:N or auto, got 0"),
    ({"precision": "float64"}, "inference: precision must be one of float32, float16, bfloat16, got 'float64'"),
    ({"backend": "torch", "precision": "float16"}, "float16 runs on a GPU only"),
])
def test_bad_settings_are_refused_by_name(kw, message):
    net = PolicyValueNet.load(SHIPPED[0])
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        inference_net(net, **kw)
    with pytest.raises(ValueError, match="str is neither a block network"):
        inference_net("kerala.zip", backend="torch")


def test_the_knob_table_declares_the_three_settings():
    assert INFERENCE_KNOBS.defaults() == {"inference": "numpy", "device": "cpu", "precision": "float32"}
    assert INFERENCE_KNOBS.parse_options({"device": "cuda:1", "precision": "bfloat16"}) == \
        {"device": "cuda:1", "precision": "bfloat16"}
    assert "cuda:N" in INFERENCE_KNOBS.markdown()


def test_resolve_device():
    assert resolve_device("cpu") == "cpu" and resolve_device(" CPU ") == "cpu"
    assert resolve_device("auto") == ("cuda" if CUDA else "cpu")
    with pytest.raises(ValueError, match="device must be cpu, cuda, cuda:N or auto, got 'tpu'"):
        resolve_device("tpu")
    with pytest.raises(ValueError, match="cuda:99"):
        resolve_device("cuda:99")


@pytest.mark.skipif(CUDA, reason="torch sees a GPU here")
def test_a_gpu_that_is_not_there_is_refused_clearly(tmp_path, capsys):
    net = PolicyValueNet.load(SHIPPED[0])
    for device in ("cuda", "cuda:0"):
        with pytest.raises(ValueError, match=f"device '{device}': torch sees no GPU here"):
            resolve_device(device)
        with pytest.raises(ValueError, match="torch sees no GPU"):
            inference_net(net, device=device)
    # a GPU asked of a trainer is refused before anything is written
    assert main(["train", "template", "--players", "3", "--algo", "exit", "--device", "cuda", "--iterations", "1",
                 "--out", str(tmp_path / "run"), "--quiet", "--no-tensorboard"]) == 2
    assert "torch sees no GPU" in capsys.readouterr().err and not (tmp_path / "run").exists()


def test_the_device_flag_is_a_run_setting_of_every_trainer(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["train", "template", "--algo", "exit", "--device", "gpu"])
    assert "train: device must be cpu, cuda, cuda:N or auto, got 'gpu'" in capsys.readouterr().err
    out = tmp_path / "run"
    assert main(["train", "template", "--players", "3", "--algo", "exit", "--device", "cpu", "--iterations", "1",
                 "--games-per-iteration", "2", "--sims", "4", "--eval-games", "0", "--width", "16", "--out", str(out),
                 "--quiet", "--no-tensorboard"]) == 0
    assert "device" not in json.loads((out / "config.json").read_text())  # a continued run may train elsewhere


# -- training on a device -----------------------------------------------------------------------------------------
def _fit_once(learner: Learner, seed: int = 0) -> dict[str, float]:
    game = learner.game
    rng = np.random.default_rng(seed)
    obs = rng.random((32, game.observation_shape[0]), dtype=np.float32)
    data = {"obs": obs, "z": rng.uniform(-1, 1, (32, game.num_players)).astype(np.float32)}

    def loss(b):
        _, v = learner.forward(b["obs"])
        value = ((v - b["z"]) ** 2).mean()
        return value, {"value_loss": value.item()}

    return learner.fit(data, 2, 8, seed, loss)


def test_a_learner_step_on_the_cpu(tmp_path):
    import meeplezoo

    game = meeplezoo.make_game("template", 3)
    learner = Learner(game, SMALL, lr=1e-2, weight_decay=0.0, seed=3, device="cpu")
    assert learner.device.type == "cpu" and next(learner.net.parameters()).device.type == "cpu"
    before = learner.numpy_net().params
    assert _fit_once(learner)["value_loss"] > 0
    after = learner.numpy_net().params
    assert any(not np.array_equal(before[k], after[k]) for k in before)
    learner.save(tmp_path / "trainer.pt")
    state = torch.load(tmp_path / "trainer.pt", weights_only=True)
    tensors = [*state["net"].values(), *(t for s in state["opt"]["state"].values() for t in s.values())]
    assert tensors and all(t.device.type == "cpu" for t in tensors)
    again = Learner(game, SMALL, lr=1e-2, weight_decay=0.0, seed=99, device="auto" if not CUDA else "cpu")
    again.load(tmp_path / "trainer.pt")
    assert all(np.array_equal(v, after[k]) for k, v in again.numpy_net().params.items())


def test_tiny_runs_train_on_the_cpu_through_the_public_functions(tmp_path):
    res = train_exit("template", tmp_path / "exit", num_players=3, iterations=1, games_per_iteration=2, sims=4,
                     eval_games=0, tensorboard=False, verbose=0, device="cpu", **SMALL)
    assert res.iterations == 1 and (tmp_path / "exit" / "final.zip").exists()
    cfg = DistillConfig(game="haus_der_sonne", teacher="mcts:sims=4", games=2, chunk=1, init="scratch", width=16,
                        holdout=2, epochs=1)
    out = distill(cfg, tmp_path / "distill", verbose=0, device="cpu")
    assert out.samples > 0 and PolicyValueNet.load(out.checkpoint).game.name == "haus_der_sonne"
    start = res.run_dir / "final.zip"
    ft = finetune("template", tmp_path / "ft", num_players=3, init=str(start), opponents={"random": 1.0}, updates=1,
                  games_per_update=2, eval_games=0, eval_against=("random",), tensorboard=False, verbose=0,
                  device="cpu")
    assert ft.updates == 1


def test_ppo_refuses_a_gpu_that_is_not_there_before_training(tmp_path):
    ppo = pytest.importorskip("meeplezoo.training.ppo")
    if CUDA:
        pytest.skip("torch sees a GPU here")
    with pytest.raises(ValueError, match="torch sees no GPU"):
        ppo.train("template", 3, opponents="random:1", timesteps=16, out_dir=tmp_path / "ppo", tensorboard=False,
                  verbose=0, device="cuda")


# -- on a GPU -------------------------------------------------------------------------------------------------------
@needs_cuda
@pytest.mark.parametrize("precision", ["float32", "float16", "bfloat16"])
def test_every_shipped_network_on_the_gpu(shipped, precision):
    net, states, obs, masks = shipped
    tnet = inference_net(net, "numpy", "cuda", precision)  # a GPU means torch
    assert isinstance(tnet, TorchNet) and tnet.device.type == "cuda"
    allow = torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32
    torch.backends.cudnn.allow_tf32 = torch.backends.cuda.matmul.allow_tf32 = False
    try:
        _same(net, tnet, obs, masks, 1e-4 if precision == "float32" else 0.1)
    finally:
        torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32 = allow


@needs_cuda
def test_a_learner_trained_on_the_gpu_continues_on_the_cpu(tmp_path):
    import meeplezoo

    game = meeplezoo.make_game("template", 3)
    gpu = Learner(game, SMALL, lr=1e-2, weight_decay=0.0, seed=3, device="cuda")
    assert next(gpu.net.parameters()).device.type == "cuda"
    _fit_once(gpu)
    gpu.save(tmp_path / "trainer.pt")
    cpu = Learner(game, SMALL, lr=1e-2, weight_decay=0.0, seed=5, device="cpu")
    cpu.load(tmp_path / "trainer.pt")
    trained = gpu.numpy_net().params
    assert all(np.array_equal(v, trained[k]) for k, v in cpu.numpy_net().params.items())
    assert _fit_once(cpu, seed=1)["value_loss"] > 0  # the optimiser's state came along to the CPU


@needs_cuda
def test_a_tiny_run_trains_on_the_gpu(tmp_path):
    res = train_exit("template", tmp_path / "exit", num_players=3, iterations=1, games_per_iteration=2, sims=4,
                     eval_games=0, tensorboard=False, verbose=0, device="cuda", **SMALL)
    assert PolicyValueNet.load(res.run_dir / "final.zip").game.name == "template"
    again = train_exit("template", tmp_path / "exit", num_players=3, iterations=2, games_per_iteration=2, sims=4,
                       eval_games=0, tensorboard=False, verbose=0, device="cpu", **SMALL)
    assert again.iterations == 2
