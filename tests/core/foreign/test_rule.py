"""The one rule for "wrong" (core/foreign/agree.py): a grad is judged against the derivative
of the learner's OWN forward, at points away from kinks or with either one-sided slope
accepted; their forward is judged apart; reflected and unknown ops are exercised. Run in
this process on hand-made classes (core/foreign/local.py): fast, no child process."""

import math

import pytest

from core.foreign import agree
from core.foreign.local import check_case, check_class
from core.foreign.report import to_text
from tests.core.foreign import rule_values as rv


def verdict(V):
    report = check_class(V)
    return report, to_text(report)


@pytest.mark.parametrize("V", [rv.Base, rv.LogEps, rv.ReluKinkOne, rv.Float32, rv.Unknown, rv.OptIn])
def test_a_correct_engine_is_right(V):
    report, text = verdict(V)
    assert report["status"] == "ok", text
    assert sum(c["status"] == "pass" for c in report["cases"]) >= 60


def test_log_with_a_regulariser_is_right_and_log_without_is_right_too():
    # MiniTorch's template: log(x + 1e-6); the learner's grad 1/(x + 1e-6) is the derivative of their function
    assert check_case(rv.LogEps, "x = 0.5; x.log()")["status"] == "pass"
    assert check_case(rv.Base, "x = 0.5; x.log()")["status"] == "pass"


def test_relu_at_its_kink_accepts_either_slope():
    for V in (rv.Base, rv.ReluKinkOne):  # relu'(0) = 0 and relu'(0) = 1
        assert check_case(V, "x = 0.0; s = -2.0; x.relu()*s")["status"] == "pass"


def _relu_with_slope_at_zero(slope):
    class Kink(rv.Base):
        def relu(self):
            def back(out):
                self.grad += (slope if self.data == 0 else float(self.data > 0)) * out.grad

            return self._out(max(0.0, self.data), (self,), "ReLU", back)

    return Kink


@pytest.mark.parametrize("slope, status", [(0.0, "pass"), (0.5, "pass"), (1.0, "pass"), (2.0, "fail"), (-1.0, "fail")])
def test_relu_at_its_kink_takes_a_slope_between_the_one_sided_ones_and_no_other(slope, status):
    # relu'(0): 0, 1 or anything between is a subgradient; 2 or −1 is a bug (issue 41's surviving plant)
    result = check_case(_relu_with_slope_at_zero(slope), "x = 0.0; s = -2.0; x.relu()*s")
    assert result["status"] == status
    if status == "fail":
        assert result["fault"]["diagnosis"] == "relu-derivative"


def test_relu_just_off_its_kink_is_not_a_kink():
    # relu' = 1 at x = -0.001 is wrong: only x = 0 exactly is the kink
    assert check_case(rv.ReluKinkOne, "x = -0.001; s = -2.0; x.relu()*s")["status"] == "pass"

    class OneEverywhere(rv.Base):
        def relu(self):
            def back(out):
                self.grad += out.grad

            return self._out(max(0.0, self.data), (self,), "ReLU", back)

    assert check_case(OneEverywhere, "x = -0.001; s = -2.0; x.relu()*s")["status"] == "fail"


def test_a_sign_flip_in_their_own_neg_is_named_a_wrong_sign():
    class NegBug(rv.Base):
        def __neg__(self):
            def back(out):
                self.grad += out.grad  # d(−x)/dx = −1

            return self._out(-self.data, (self,), "neg", back)

    result = check_case(NegBug, "x = 1.5; s = 2.0; (-x)*s")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "sign"


def test_the_battery_never_tests_relu_at_zero():
    report, _ = verdict(rv.Base)
    relu = [c["name"] for c in report["cases"] if c["name"].startswith("relu(x) at")]
    assert relu and not any(name.endswith("x=0.0") for name in relu)


def test_float32_is_judged_in_float32():
    report, text = verdict(rv.Float32)
    assert report["status"] == "ok", text
    assert agree.tolerance(float(2**-23)).rtol > agree.tolerance().rtol


def test_a_reflected_op_bug_is_found_at_rsub():
    report, text = verdict(rv.RsubBug)
    assert report["status"] == "wrong", text
    fault = report["fault"]
    assert fault["case"].startswith("1.0 - x") and fault["op"] == "rsub"
    assert "self.grad += out.grad  # should be -out.grad" in fault["line"]  # their line, quoted


def test_ops_the_studio_does_not_know_are_tested_under_their_own_names():
    report, text = verdict(rv.Unknown)
    assert {"sin", "softplus"} <= set(report["offered"])
    names = [c["name"] for c in report["cases"]]
    assert any(n.startswith("sin(x) at") for n in names) and any(n.startswith("softplus(x)*s") for n in names)
    bad, text = verdict(rv.UnknownBug)
    assert bad["status"] == "wrong", text
    assert bad["fault"]["case"].startswith("softplus") and bad["fault"]["op"] == "softplus"
    assert bad["fault"]["reference"] == "central differences of your forward"


def test_a_forward_bug_is_named_as_a_forward_bug_at_its_op():
    report, text = verdict(rv.SigmoidForwardBug)
    assert report["status"] == "wrong", text
    fault = report["fault"]
    assert fault["diagnosis"] == "forward" and fault["studio_op"] == "sigmoid"
    assert "1/(1 + eˣ)" in fault["cause"] and fault["node"] != "x"  # the op, not a leaf


def test_leaves_that_need_an_opt_in_flag_get_it():
    report, text = verdict(rv.OptIn)
    assert report["status"] == "ok", text
    assert any("requires_grad=True" in note for note in report["notes"])


def test_a_wrong_number_is_never_printed_equal_to_the_right_one():
    assert agree.pair(2.0, 1.999996000008) == ("2", "1.999996")
    assert agree.pair(2.0000001, 2.0) == ("2.0000001", "2")
    got, want = agree.pair(1 / 3, 0.33333333333)
    assert got != want


def test_central_differences_see_a_kink_and_trust_a_smooth_curve():
    h = 1e-5
    relu = [max(0.0, v) for v in (h, -h, h / 2, -h / 2)]
    d = agree.central(relu, h, 0.0)
    assert (d.low, d.high) == (0.0, 1.0) and agree.agree(1.0, d) and agree.agree(0.0, d)
    log = [math.log(v) for v in (0.5 + h, 0.5 - h, 0.5 + h / 2, 0.5 - h / 2)]
    d = agree.central(log, h, math.log(0.5))
    assert d.low == d.high and agree.agree(2.0, d) and not agree.agree(2.01, d)


def test_a_forward_regulariser_passes_and_a_wrong_formula_does_not():
    assert agree.forward_agrees(math.log(0.5 + 1e-6), math.log(0.5))
    assert not agree.forward_agrees(1 / (1 + math.exp(0.5)), 1 / (1 + math.exp(-0.5)))


def test_the_points_are_drawn_afresh_for_each_run():
    from core.foreign import battery

    first, _ = battery.cases(1)
    second, _ = battery.cases(2)
    written, _ = battery.cases(None)
    assert [c.name for c in first] != [c.name for c in second]
    assert "x * y at x=-1.5, y=2.0" in [c.name for c in written]


def test_a_rounded_forward_is_judged_by_the_function_its_author_meant():
    report, text = verdict(rv.RoundedExp)
    assert report["status"] == "ok", text


def test_made_up_difference_quotients_from_the_child_cannot_pass_a_wrong_grad():
    # the child's numbers are all a learner's code could forge: quotients that fit their wrong
    # power rule, beside a forward that is the studio's, are still judged by the exact derivative
    from core.foreign import battery, judge
    from core.foreign.child.probe import Probe
    from core.foreign.local import _round_trip

    case = battery.case("x**2", "x = 1.5; x**2")
    probe = Probe(rv.PowerBug, ())
    got = _round_trip(probe.run({"name": case.name, "program": case.program}))
    their = got["runs"][0]["x"]  # k·x^k = 6.75, not 3
    h = got["fd"]["x"]["h"]
    f0 = got["forward"][case.program["output"]]
    got["fd"]["x"]["f"] = [f0 + their * d for d in (h, -h, h / 2, -h / 2)]  # a forged straight line
    for item in got["local_fd"].values():
        for port in item:
            if port:
                port["f"] = [f0 + their * d for d in (port["h"], -port["h"], port["h"] / 2, -port["h"] / 2)]
    result = judge.judge(case, got, probe.eps)
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "power-rule"


def test_a_grad_kept_as_a_method_is_read_by_calling_it():
    report, text = verdict(rv.GradMethod)
    assert report["status"] == "ok", text
    assert any("could not be stepped" in n for n in report["notes"])  # said once, for the report


def test_a_pull_style_grad_method_is_named_as_a_design_the_check_cannot_step():
    """Repro (held-out batch 5, kamodulin): a right engine whose `x.grad()` pulls the gradient
    was told "nothing computes a gradient yet -- write them"."""
    report, text = verdict(rv.PullGrad)
    assert report["status"] == "unusable", text
    assert "by calling `grad()` on a node" in report["message"] and "nothing computes" not in report["message"]


def test_a_number_among_the_children_is_named_not_an_internal_error():
    report, text = verdict(rv.ExponentChild)
    assert report["status"] == "raised", text
    assert "node keeps -1 (an int) among its children" in report["message"] and "data is None" not in text
    # theirs, not the studio's limit (held-out batch 5, Finix-07): their own backward() walks into it too
    assert "yours walks into it too" in report["message"] and "ExponentChild(-1)" in report["message"]


def test_an_op_without_return_out_names_its_method():
    report, text = verdict(rv.NoReturn)
    assert report["status"] == "raised", text
    assert "`return out` missing?" in report["message"]
    assert report["fault"]["line"].endswith("def relu(self):")


@pytest.mark.parametrize("V, flag", [(rv.OptInOtherName, "require_grad"), (rv.OptInAttribute, "require_grad")])
def test_an_opt_in_switch_under_another_name_is_found_by_what_it_does(V, flag):
    report, text = verdict(V)
    assert report["status"] == "ok", text
    assert any(flag in note for note in report["notes"]), report["notes"]


def test_pytorchs_switch_as_a_method_alone_is_found_by_what_it_does():
    """Repro (held-out batch 5, a MiniTorch package): leaves are constants until
    `requires_grad_(True)`, with no attribute to read -- called wrong ("your add returns a
    Value that keeps no children")."""
    report, text = verdict(rv.OptInMethod)
    assert report["status"] == "ok", text
    assert any("requires_grad_(True)" in note for note in report["notes"]), report["notes"]


def test_a_switch_that_turns_gradients_off_is_never_set():
    report, text = verdict(rv.SwitchedOff)
    assert report["status"] == "ok", text
    assert not any("opt-in" in note for note in report["notes"]), report["notes"]


def test_a_grad_under_a_private_name_is_found_by_what_backward_fills():
    report, text = verdict(rv.PrivateGrad)
    assert report["status"] == "ok", text


def test_a_value_stored_in_grad_is_their_fault_not_the_checkers_error():
    result = check_case(rv.GradIsAValue, "x = 1.5; x**3")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "grad-node", result
    assert "float() argument" not in str(result)


def test_a_do_nothing_closure_from_the_constructor_is_no_gradient_code():
    report, text = verdict(rv.ForwardOnly)
    assert report["status"] == "unusable", text
    assert "no backward() and no gradient code" in report["message"] and "your backward()" not in text


def test_an_operator_that_returns_nothing_is_named_at_its_line():
    report, text = verdict(rv.AddReturnsNothing)
    assert report["status"] == "raised", text
    assert "`return out` missing?" in report["message"] and report["fault"]["line"]


def test_an_op_label_for_a_whole_step_is_no_truth_for_its_node():
    # at x = 0 the add node's number happens to be (-y) - x too: the label must still not be taken for its op
    for text in ("x = 0.0; y = 3.0; x - y", "x = -1.5; y = 2.0; x - y"):
        assert check_case(rv.RelabelledSub, text)["status"] == "pass", text
    result = check_case(rv.RelabelledSubRootOnly, "x = 0.0; y = 3.0; x - y")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] != "sign", result["fault"]


def test_gradient_code_hung_on_the_operands_is_gradient_code():
    report, text = verdict(rv.ClosuresOnOperands)
    assert report["status"] == "wrong", text


def test_a_forward_bug_at_a_step_over_a_step_is_named_without_the_checker_failing():
    # the step's operand is x*y, not a leaf: its text once missed the operand's name (KeyError 't8')
    result = check_case(rv.ReluForwardDoubled, "x = 0.5; y = 2.0; (x*y).relu()")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "forward", result
    assert "(x * y).relu() at x * y = 1 gives 2" in result["fault"]["cause"], result["fault"]["cause"]
    report, text = verdict(rv.ReluForwardDoubled)
    assert report["status"] == "wrong", text


def test_children_kept_as_pairs_with_their_local_derivatives_are_read():
    report, text = verdict(rv.PairParents)
    assert report["status"] == "ok", text
    bad, text = verdict(rv.PairParentsBug)
    assert bad["status"] == "wrong", text
    assert "Only Values belong" not in text and "among its children" not in text


def test_a_pass_written_as_a_module_function_is_their_backward():
    from tests.core.foreign import pass_function_values as pf

    namespace = {"Variable": pf.Variable, "AddOp": pf.AddOp, "MulOp": pf.MulOp, "backward": pf.backward}
    report = check_class(pf.Variable, namespace)
    assert report["status"] == "ok", to_text(report)
    bad = check_class(pf.Variable, {**namespace, "backward": _renamed(pf.backward_by_stack, "backward")})
    text = to_text(bad)
    assert bad["status"] == "wrong", text
    assert "no gradient code of their own" in text  # said why their code was not stepped node by node


def _renamed(fn, name):
    import types

    return types.FunctionType(fn.__code__, fn.__globals__, name, fn.__defaults__, fn.__closure__)


def test_without_a_pass_function_the_same_classes_have_no_backward():
    from tests.core.foreign import pass_function_values as pf

    report = check_class(pf.Variable, {"Variable": pf.Variable, "AddOp": pf.AddOp, "MulOp": pf.MulOp})
    assert report["status"] == "unusable", to_text(report)


def test_a_closure_stored_as_out_backward_is_named_as_hiding_the_pass():
    result = check_case(rv.ClosureAsBackward, "x = 1.5; y = 2.0; x + y")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "pass-shadowed", result["fault"]
    assert "store it as `out._backward`" in result["fault"]["cause"]


def test_a_pass_that_never_walks_its_order_is_an_order_fault_not_the_ops():
    # once: "in a test of add alone, so your add computes the wrong gradient"
    result = check_case(rv.NeverWalks, "x = 1.5; y = 2.0; x + y")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "order", result["fault"]
    assert "ran no node's _backward at all" in result["fault"]["cause"]


def test_a_pass_that_seeds_nothing_is_named_so():
    class NoSeed(rv.Base):
        def backward(self):
            topo, seen = [], set()

            def build(v):
                if v not in seen:
                    seen.add(v)
                    for child in v._prev:
                        build(child)
                    topo.append(v)

            build(self)
            for v in reversed(topo):
                v._backward()

    result = check_case(NoSeed, "x = 1.5; y = 2.0; x * y")
    assert result["status"] == "fail" and result["fault"]["diagnosis"] == "no-seed", result["fault"]


def test_a_pass_and_closures_misspelt_throughout_are_read_as_spelt():
    # `backaward` and `_backwards`: their code judged as they wrote it (its pass only seeds: wrong), and said
    report, text = verdict(rv.MisspeltPass)
    assert report["status"] == "wrong", text
    assert "the studio read your `_backwards` as _backward and `backaward` as backward()" in text


def test_misspelt_closures_without_any_pass_are_named():
    report, text = verdict(rv.MisspeltClosures)
    assert report["status"] == "unusable", text
    assert report["message"].startswith("Your class has `_backwards` (the studio looks for `_backward`): misspelt?")


def test_a_unary_op_read_as_a_binary_ops_shape_with_none_is_read():
    # `(self, None)` as a unary op's children: once "your relu node keeps None ... among its children"
    report, text = verdict(rv.NoneChild)
    assert report["status"] == "ok", text


@pytest.mark.parametrize("V", [rv.SqrtMethod, rv.SqrtAsPower])
def test_a_method_the_studio_does_not_know_is_not_faulted_outside_its_domain(V):
    # the template's x = -1.3 is a point the studio chose blind: once "raised" (math domain error, or the
    # checker's own float() of a complex)
    report, text = verdict(V)
    assert report["status"] == "ok", text
    assert "outside your sqrt's domain" in text
    assert any(c["name"].startswith("sqrt(x)") and c["status"] == "pass" for c in report["cases"])


def test_a_number_kept_as_data_under_a_private_name_is_found_by_its_value():
    # micrograd's Value with `_data` and `_grad`: once "no Value class" for a class named Value
    report, text = verdict(rv.PrivateData)
    assert report["status"] == "ok", text
