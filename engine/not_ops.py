"""The public names that are not ops, each with why it cannot be a node.

Every public function of ``engine``, ``engine.nn.functional`` and ``engine.linalg``
is either declared in the engine's table (``engine.catalog.public``), so the studio
can offer it, or listed here; ``tests/engine_tests/test_public_names.py`` fails on a
name that is neither, and on a name listed here that is gone or now declared.  A node
computes tensors from tensors: what returns a Python value, reads or sets a
process-wide setting, or touches files is not one.
"""

from __future__ import annotations

#: Reason -> the qualified names it covers.
NOT_OPS: dict[str, tuple[str, ...]] = {
    "reads or sets process-wide state (defaults, random seeds, modes, printing), "
    "not a value in the graph": (
        "torch.get_default_device",
        "torch.get_default_dtype",
        "torch.set_default_device",
        "torch.set_default_dtype",
        "torch.get_rng_state",
        "torch.set_rng_state",
        "torch.initial_seed",
        "torch.manual_seed",
        "torch.seed",
        "torch.set_printoptions",
        "torch.set_anomaly_enabled",
        "torch.is_anomaly_enabled",
        "torch.is_anomaly_check_nan_enabled",
        "torch.is_grad_enabled",
        "torch.is_inference_mode_enabled",
        "torch.is_autocast_enabled",
        "torch.get_autocast_dtype",
        "torch.clear_autocast_cache",
        "torch.get_float32_matmul_precision",
        "torch.set_float32_matmul_precision",
    ),
    "transforms a Python function (torch.func): it takes code, not tensors": ("torch.vmap",),
    "a layer's whole forward taking its weights as arguments (nn.MultiheadAttention's): the "
    "studio records the ops it is made of": ("torch.nn.functional.multi_head_attention_forward",),
    "answers with a Python bool, int, dtype or Size, not a tensor": (
        "torch.allclose",
        "torch.equal",
        "torch.is_tensor",
        "torch.is_complex",
        "torch.is_floating_point",
        "torch.is_signed",
        "torch.numel",
        "torch.can_cast",
        "torch.promote_types",
        "torch.result_type",
        "torch.broadcast_shapes",
    ),
    "reads or writes files or NumPy memory, which a document does not hold": (
        "torch.load",
        "torch.save",
        "torch.from_numpy",
    ),
    "the engine's own helpers, not PyTorch names (a program cannot call them)": (
        "torch.alias",
        "torch.unsafe_view",
        "torch.compiled",
    ),
}


def not_an_op(qualname: str) -> str | None:
    """Why ``qualname`` has no declaration, or None where it should have one."""
    for reason, names in NOT_OPS.items():
        if qualname in names:
            return reason
    return None
