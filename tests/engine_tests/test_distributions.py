"""``torch.distributions`` as learners' programs use it (a REINFORCE policy's
``Categorical``, a VAE's ``Normal``, d2l's ``Multinomial`` dice): seeded samples, log-probs,
entropies, gradients, graph nodes, reprs and validation messages, against PyTorch live
(marked ``torch``) and against ``golden/distributions.json`` recorded from PyTorch 2.13
(``python -m tests.engine_tests.test_distributions`` re-records it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import engine

GOLDEN = Path(__file__).parent / "golden" / "distributions.json"


def facts(torch: Any) -> dict[str, Any]:
    """What one seeded program observes, run on ``torch`` (the engine or PyTorch)."""

    D = torch.distributions
    Categorical, Normal, Bernoulli, Multinomial, Uniform, kl_divergence = (
        D.Categorical,
        D.Normal,
        D.Bernoulli,
        D.Multinomial,
        D.Uniform,
        D.kl_divergence,
    )
    out: dict[str, Any] = {}
    torch.manual_seed(0)
    logits = torch.tensor([[0.5, -1.0, 2.0], [0.0, 0.3, -0.2]], requires_grad=True)
    c = Categorical(logits=logits)
    s = c.sample((4,))
    lp = c.log_prob(s)
    out["cat_sample"] = s.tolist()
    out["cat_lp"] = [round(v, 6) for v in lp.flatten().tolist()]
    out["cat_lp_node"] = type(lp.grad_fn).__name__
    out["cat_entropy"] = [round(v, 6) for v in c.entropy().tolist()]
    lp.sum().backward()
    out["cat_grad"] = [round(v, 6) for v in logits.grad.flatten().tolist()]
    out["cat_repr"] = repr(c)
    p = Categorical(torch.tensor([0.2, 0.8]))
    out["cat_probs_repr"] = repr(p)
    out["cat_p_sample"] = p.sample().item()
    out["cat_batch"] = (tuple(c.batch_shape), tuple(c.event_shape))
    n = Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
    out["n_sample"] = [round(v, 6) for v in n.sample((2,)).flatten().tolist()]
    loc = torch.tensor([0.5], requires_grad=True)
    r = Normal(loc, torch.tensor([2.0])).rsample((3,))
    out["n_rsample"] = [round(v, 6) for v in r.flatten().tolist()]
    out["n_rsample_node"] = type(r.grad_fn).__name__
    out["n_lp"] = [round(v, 6) for v in n.log_prob(torch.tensor([0.3, -0.4])).tolist()]
    out["n_entropy"] = [round(v, 6) for v in n.entropy().tolist()]
    out["n_repr"] = repr(n)
    out["n_scalar_repr"] = repr(Normal(0.0, 1.0))
    try:
        Normal(torch.tensor([0.0]), torch.tensor([-1.0]))
    except ValueError as e:
        out["n_error"] = str(e)
    b = Bernoulli(probs=torch.tensor([0.3, 0.9]))
    out["b_sample"] = b.sample().tolist()
    out["b_lp"] = [round(v, 6) for v in b.log_prob(torch.tensor([1.0, 0.0])).tolist()]
    out["b_entropy"] = [round(v, 6) for v in b.entropy().tolist()]
    m = Multinomial(10, torch.tensor([0.2, 0.3, 0.5]))
    out["m_sample"] = m.sample((2,)).tolist()
    out["m_lp"] = round(m.log_prob(torch.tensor([2.0, 3.0, 5.0])).item(), 5)
    u = Uniform(torch.tensor([0.0]), torch.tensor([2.0]))
    out["u_sample"] = [round(v, 6) for v in u.sample((2,)).flatten().tolist()]
    out["u_lp"] = [round(v, 6) for v in u.log_prob(torch.tensor([0.5])).tolist()]
    out["kl_normal"] = [
        round(v, 6)
        for v in kl_divergence(
            n, Normal(torch.tensor([0.0, 0.0]), torch.tensor([1.0, 1.0]))
        ).tolist()
    ]
    out["kl_cat"] = [
        round(v, 6) for v in kl_divergence(c, Categorical(logits=torch.zeros(2, 3))).tolist()
    ]
    try:
        c.log_prob(torch.tensor([5, 0]))
    except ValueError as e:
        out["cat_support_error"] = str(e)
    return out


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value))


def test_distributions_match_the_recorded_pytorch() -> None:
    assert _jsonable(facts(engine)) == json.loads(GOLDEN.read_text())


@pytest.mark.torch
def test_distributions_match_pytorch_live() -> None:
    torch = pytest.importorskip("torch")
    assert _jsonable(facts(engine)) == _jsonable(facts(torch))


def test_import_paths_learners_use() -> None:
    from engine.distributions import Categorical
    from engine.distributions.categorical import Categorical as Same
    from engine.distributions.multinomial import Multinomial

    assert Categorical is Same and engine.distributions.Multinomial is Multinomial


def test_bad_arguments_are_refused_clearly() -> None:
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        engine.distributions.Categorical()
    with pytest.raises(ValueError, match="must be at least one-dimensional"):
        engine.distributions.Categorical(probs=engine.tensor(1.0))
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        engine.distributions.Normal(0.0, 1.0).log_prob(0.5)
    with pytest.raises(NotImplementedError, match="No KL"):
        engine.distributions.kl_divergence(
            engine.distributions.Normal(0.0, 1.0), engine.distributions.Bernoulli(0.5)
        )


if __name__ == "__main__":
    import torch as real_torch

    GOLDEN.write_text(json.dumps(_jsonable(facts(real_torch)), indent=1) + "\n")
