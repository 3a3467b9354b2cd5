"""Where a network is evaluated: numpy on the CPU (the default), or torch on the CPU or a GPU.

Playing never needs torch: a :class:`~meeplezoo.agents.network.PolicyValueNet` evaluates in numpy.  Where
many positions are evaluated at once (a batched search, a large batch of self-play games) torch can be
faster, above all on a GPU.  :func:`inference_net` turns a numpy network into the network to evaluate
with, after the settings of :data:`INFERENCE_KNOBS`:

* ``inference``: ``numpy`` or ``torch``;
* ``device``: ``cpu``, ``cuda``, ``cuda:N`` or ``auto`` (``cuda`` where torch sees a GPU, else ``cpu``);
* ``precision``: ``float32``, ``bfloat16`` (CPU or GPU) or ``float16`` (GPU only: refused on the CPU,
  where torch's half-precision kernels are slow or missing).

numpy evaluates in float32 on the CPU only, so asking for a GPU or a half precision runs torch whatever
``inference`` says (``inference=numpy, device=cuda`` is torch on the GPU).  The torch networks
(:class:`~meeplezoo.training.torch_net.TorchNet` for block networks,
:class:`~meeplezoo.training.torch_net.TorchSeatNet` for seat networks) are drop-ins for the numpy ones: the
same weights, the same ``forward(obs) -> (logits, values)`` on a batch of flat observations (numpy arrays in
and out), the same ``policy``, ``observe`` and ``save`` (and ``features`` of the block network,
``for_players`` of the seat network).

The trainers' ``device`` (``meeplezoo train --device``) is where the learner trains
(:class:`~meeplezoo.training.learner.Learner`); it is a run setting, not part of the run's config: a run
continued on another machine may use another device.  torch is imported only when it is needed.
"""

from __future__ import annotations

import re
from typing import Any

from meeplezoo.agents.network import PolicyValueNet
from meeplezoo.agents.seatnet import SeatPolicyValueNet
from meeplezoo.knobs import Knob, Knobs

#: the devices a setting may name
DEVICE_FORMS = "cpu, cuda, cuda:N or auto"
_DEVICE = re.compile(r"cpu|auto|cuda(:\d+)?")
#: the precisions and the devices each runs on
PRECISIONS = ("float32", "float16", "bfloat16")


def check_device(value: str) -> str:
    """``value`` if it has the form of a device setting (``cpu``, ``cuda``, ``cuda:N``, ``auto``), else a
    ValueError saying what is expected (whether the device exists is :func:`resolve_device`'s question)."""
    text = value.strip().lower() if isinstance(value, str) else value
    if not isinstance(text, str) or not _DEVICE.fullmatch(text):
        raise ValueError(f"must be {DEVICE_FORMS}, got {value!r}")
    return text


#: the settings of network evaluation (:func:`inference_net`)
INFERENCE_KNOBS = Knobs("inference", [
    Knob("inference", str, "numpy", "what evaluates the network: numpy (CPU, float32) or torch",
         choices=("numpy", "torch")),
    Knob("device", str, "cpu", "where the network runs: cpu, cuda, cuda:N or auto (cuda when torch sees a GPU); "
         "a GPU means torch", check=check_device, what=DEVICE_FORMS),
    Knob("precision", str, "float32", "the network's float type in torch: float32, bfloat16 (CPU or GPU) or "
         "float16 (GPU only)", choices=PRECISIONS),
])


def _torch() -> Any:
    try:
        import torch
    except ImportError:
        raise ValueError("this device or backend needs torch: pip install 'meeplezoo[train]'") from None
    return torch


def resolve_device(device: str = "cpu") -> str:
    """The torch device a setting names: ``cpu``, ``cuda``, ``cuda:N``; ``auto`` is ``cuda`` where torch
    is installed and sees a GPU, else ``cpu``.

    A ValueError names a setting of another form, and a GPU asked for where torch sees none (or not that
    many).  ``cpu`` needs no torch.
    """
    device = check_device_setting(device)
    if device == "cpu":
        return "cpu"
    if device == "auto":
        try:
            import torch
        except ImportError:
            return "cpu"
        return "cuda" if torch.cuda.is_available() else "cpu"
    torch = _torch()
    if not torch.cuda.is_available():
        raise ValueError(f"device {device!r}: torch sees no GPU here (torch.cuda.is_available() is False); "
                         "use device=cpu or auto")
    index = int(device.partition(":")[2] or 0)
    if index >= torch.cuda.device_count():
        raise ValueError(f"device {device!r}: torch sees {torch.cuda.device_count()} GPU(s), "
                         f"numbered from cuda:0")
    return device


def check_device_setting(device: str) -> str:
    """A device setting checked for its form (:func:`check_device`), the error naming the setting."""
    return INFERENCE_KNOBS.validate({"device": device}, fill=False)["device"]


def inference_net(net: Any, backend: str = "numpy", device: str = "cpu",
                  precision: str = "float32") -> Any:
    """The network to evaluate ``net``'s weights with: ``net`` itself for numpy on the CPU in float32,
    otherwise its torch twin on ``device`` in ``precision``: a :class:`~meeplezoo.training.torch_net.TorchNet`
    for a block network (:class:`~meeplezoo.agents.network.PolicyValueNet`), a
    :class:`~meeplezoo.training.torch_net.TorchSeatNet` for a seat network
    (:class:`~meeplezoo.agents.seatnet.SeatPolicyValueNet`).  Both are drop-ins: ``forward(obs) -> (logits,
    values)`` on numpy arrays, as the numpy network; a torch network asked for numpy gives its numpy twin back.

    ``backend`` is the ``inference`` knob (numpy or torch); a GPU or a half precision means torch.  Bad
    settings, float16 on the CPU, a GPU that is not there and an object that is no network are refused with
    a ValueError.
    """
    settings = INFERENCE_KNOBS.validate({"inference": backend, "device": device, "precision": precision})
    where = resolve_device(settings["device"])
    precision = settings["precision"]
    if precision == "float16" and where == "cpu":
        raise ValueError("inference: precision float16 runs on a GPU only (device cpu); use bfloat16 or "
                         "float32 on the CPU")
    numpy_cpu = settings["inference"] == "numpy" and where == "cpu" and precision == "float32"
    seat = isinstance(net, SeatPolicyValueNet)
    if not seat and not isinstance(net, PolicyValueNet):
        raise ValueError(f"inference: {type(net).__name__} is neither a block network (PolicyValueNet) nor a "
                         "seat network (SeatPolicyValueNet)")
    if numpy_cpu:
        if getattr(net, "device", None) is None:
            return net
        if seat:
            return SeatPolicyValueNet(net.game, net.params, net.config, net.metadata, seat_counts=net.seat_counts)
        return PolicyValueNet(net.game, net.params, net.config, net.metadata, heads=net.heads)
    _torch()
    from meeplezoo.training.torch_net import TorchNet, TorchSeatNet  # torch: loaded only when asked for

    return TorchSeatNet(net, where, precision) if seat else TorchNet(net, where, precision)
