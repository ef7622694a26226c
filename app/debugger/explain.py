"""What the debugger says: each step explained as rich text.

A teacher presses F10 and narrates from the screen alone, so every step answers
four questions in words and real numbers:

    which `_backward` runs    Step 2 of 3 · p = y^2 runs its _backward
    what it multiplies        y.grad += 2·y.data · p.grad = 6.0000 · 1.0000 = 6.0000
    where the result goes     into y.grad (was 0.0000, now 6.0000)
    why a grad is a sum       y is used twice (by p and m): 6.0000 + 2.0000 = 8.0000

The texts of the arithmetic come from core (`StepRecord.lines`,
`BackwardStepper.local_terms`, `ForwardStepper.describe`), and so do the names
of nodes and the formulas that introduce a step (core/debugger/step_names.py);
this module only arranges them. Functions here read the controller and return
HTML; they hold no state.
"""

import html

from app.look.theme import FONT_FAMILY, MONO_FAMILY
from core.debugger.step_names import formula, headline
from core.debugger.stepper import FINAL, PARTIAL, field_of, forward_formula
from core.format import format_number

# -----------------------------------------------------------------------------
# Rich text


class Style:
    """Font sizes and colours from the theme (one scale factor for everything)."""

    def __init__(self, theme):
        s = theme.scale
        self.base = round(15 * s)
        self.big = round(20 * s)
        self.mono_px = round(16 * s)
        self.small = round(12 * s)
        c = theme.color
        self.text = c("label_text").name()
        self.muted = c("caption_text").name()
        self.highlight = c("highlight").name()
        self.bad = c("nonfinite").name()
        self.good = c("status_final").name()
        self.partial = c("status_partial").name()
        self.untouched = c("status_untouched").name()
        self.positive = c("grad_positive").name()
        self.negative = c("grad_negative").name()

    def page(self, body):
        return f"<div style=\"font-family:'{FONT_FAMILY}'; font-size:{self.base}px; color:{self.text}\">{body}</div>"

    def title(self, text):
        return f"<p style='font-size:{self.big}px; font-weight:bold; margin:0 0 4px 0'>{text}</p>"

    def heading(self, text):
        return (
            f"<p style='font-size:{self.small}px; font-weight:bold; color:{self.muted}; "
            f"margin:7px 0 1px 0'>{html.escape(text.upper())}</p>"
        )

    def mono(self, text, bold=False, color=None):
        weight = "font-weight:bold;" if bold else ""
        colour = f"color:{color};" if color else ""
        return (
            f"<span style=\"font-family:'{MONO_FAMILY}'; font-size:{self.mono_px}px; "
            f"{weight}{colour}\">{html.escape(text)}</span>"
        )

    def para(self, text, color=None):
        colour = f" color:{color};" if color else ""
        return f"<p style='margin:2px 0;{colour}'>{text}</p>"

    def banner(self, text, color):
        return (
            f"<table width='100%' cellpadding='6' style='margin:4px 0'><tr>"
            f"<td style='background-color:{color}; color:#ffffff; font-weight:bold'>{text}</td>"
            f"</tr></table>"
        )

    def status_word(self, status):
        color = {FINAL: self.good, PARTIAL: self.partial}.get(status, self.muted)
        return f"<b style='color:{color}'>{status}</b>"


def _e(text):
    return html.escape(str(text))


def _list(names):
    names = [_e(n) for n in names]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _times(n):
    return {1: "once", 2: "twice"}.get(n, f"{n} times")


def idle_html(ctrl, style):
    st = ctrl.stepper
    parts = [style.title("Debugger ready")]
    if st is None:
        parts.append(
            style.para("There is nothing to step yet: the graph needs one output node with every input wired.")
        )
        return style.page("".join(parts))
    n = len(st.order)
    out = st.name(st.root)
    backward = f"<span style=\"font-family:'{MONO_FAMILY}'\">_backward</span>"
    steps = f"{n} step{'s' if n != 1 else ''}"
    shown = getattr(getattr(ctrl, "session", None), "grads_shown", "full")
    if shown == "full":
        now = f"The graph shows the grads of a full <b>backward()</b> from {_e(out)}. Press <b>F10</b> to replay it"
    elif shown == "lesson":
        now = (
            "The canvas shows the lesson's graph with the grads as this lesson step left them. "
            f"Press <b>F10</b> to run <b>backward()</b> from {_e(out)} yourself, from zero grads,"
        )
    elif shown == "code":
        now = (
            "The canvas shows your code's Values as your last cell left them: their data and grads. "
            f"Press <b>F10</b> to run <b>backward()</b> from {_e(out)} yourself, from zero grads,"
        )
    else:
        now = f"Every grad is 0 now. Press <b>F10</b> to run <b>backward()</b> from {_e(out)}"
    parts.append(
        style.para(
            f"{now} one {backward} call at a time ({steps}), or <b>F7</b> to first step the forward pass node by node."
        )
    )
    if ctrl.notice:
        parts.insert(0, style.banner(_e(ctrl.notice), style.partial))
        parts.insert(
            1,
            style.para(
                "<a href='debug:reset'>▶ Step through it again</a> (F10)&nbsp;&nbsp;·"
                "&nbsp;&nbsp;<a href='debug:forward'>Step the forward pass first</a> (F7)"
            ),
        )
    return style.page("".join(parts))


def start_html(ctrl, style):
    st = ctrl.stepper
    out = st.name(st.root)
    n = len(st.order)
    parts = [style.title(f"Step 0 of {n} · ready to backpropagate from {_e(out)}")]
    parts.append(
        style.para(
            f"Every grad in the graph was set to 0 (intermediate nodes too), then "
            f"{style.mono(field_of(out) + ' = 1', bold=True)}: the output changes one for one "
            f"with itself, d{_e(out)}/d{_e(out)} = 1."
        )
    )
    parts.append(_next_line(ctrl, style))
    return style.page(_banners(ctrl, style) + "".join(parts))


def step_html(ctrl, record, style):
    """The chain rule of one StepRecord, symbolic and in numbers. The arithmetic (the
    `+=` lines) comes right under the title, so a short pane still shows it whole."""
    # the quiz first: its question, or the answer's feedback, is what the learner reads now
    return style.page(step_head(ctrl, record, style) + step_rest(ctrl, record, style))


def step_head(ctrl, record, style):
    """What must be in view at every step: the quiz, the banners, the title and the
    chain rule's `+=` line for each operand (the panel sizes its pane to show this)."""
    st = ctrl.stepper
    node = record.node
    n = len(st.order)
    last = " — the last one" if record.index + 1 == n else ""
    replay = getattr(st, "replay", None)
    runs = "applies its local grads" if getattr(replay, "local_grads", False) else f"runs its {style.mono('_backward')}"
    parts = [style.title(f"Step {record.index + 1} of {n} · {style.mono(headline(st, node), bold=True)} {runs}{last}")]
    hidden = ctrl.quiz_hidden()
    rows = []
    for child, line in zip(record.children, record.lines):
        if child in hidden:
            head = line.split(" = ", 1)[0]
            rows.append(style.mono(f"{head} = ?", bold=True) + f"  <i style='color:{style.muted}'>(your turn)</i>")
            continue
        main, _, rest = line.partition(" (was ")
        rows.append(
            style.mono(main, bold=True) + f"&nbsp; <span style='color:{style.muted}; font-size:{style.small}px'>"
            f"(was {_e(rest)}</span>"
        )
    parts.append("".join(style.para(r) for r in rows))
    return _quiz(ctrl, style) + _banners(ctrl, style) + "".join(parts)


def step_rest(ctrl, record, style):
    """Why, the local derivatives, where the grads go, sums and what comes next."""
    st = ctrl.stepper
    node = record.node
    name = st.name(node)
    parts = []
    if node is st.root:
        why = (
            f"{_e(name)} is the output, so its grad is the seed: "
            f"{style.mono(f'{field_of(name)} = {format_number(record.out_grad)}', bold=True)}."
        )
    elif st.status(node) != FINAL:  # only a learner's pass in the wrong order does this
        pending = [u for u in st.users(node) if st.step_index(u) is None or st.step_index(u) > record.index]
        why = (
            f"{style.mono(f'{field_of(name)} = {format_number(record.out_grad)}', bold=True)} is only "
            f"{style.status_word(PARTIAL)}: {_list(st.name(u) for u in pending)} "
            f"{'has' if len(pending) == 1 else 'have'} not passed "
            f"{'its' if len(pending) == 1 else 'their'} gradient back yet."
        )
    else:
        users = st.users(node)
        why = (
            f"{style.mono(f'{field_of(name)} = {format_number(record.out_grad)}', bold=True)} is "
            f"{style.status_word(FINAL)}: {_list(st.name(u) for u in users)} "
            f"{'has' if len(users) == 1 else 'have'} already passed "
            f"{'its' if len(users) == 1 else 'their'} gradient back."
        )
    parts.append(
        style.para(
            why + f" Now {_e(name)} passes it on to {'its input' if len(set(record.children)) == 1 else 'its inputs'}."
        )
    )

    parts.append(style.heading("local derivatives"))
    hidden = ctrl.quiz_hidden()
    terms = []
    for child, (symbolic, value) in zip(record.children, st.local_terms(node)):
        text = f"∂{name}/∂{st.name(child)} = {symbolic}"
        if symbolic not in ("1", "-1") and child not in hidden:  # times out.grad 1 it IS the answer
            text += f" = {format_number(value)}"
        terms.append(style.mono(text))
    parts.append(style.para("&nbsp;&nbsp;&nbsp;&nbsp;".join(terms)))

    rule = "chain rule: input.grad += local derivative × out.grad"
    parts.append(style.para(f"<i style='color:{style.muted}'>{rule}</i>"))
    targets = list(dict.fromkeys(record.children))
    into = _list(field_of(st.name(c)) + ("" if c in hidden else f" ({st.status(c)})") for c in targets)
    parts.append(style.para(f"→ into <b>{into}</b>: the yellow boxes on the graph, fed by the glowing wires."))
    parts.append(_sums(ctrl, targets, hidden, style))
    parts.append(_next_line(ctrl, style))
    return "".join(parts)


def _sums(ctrl, targets, hidden, style):
    """For an operand used more than once: its grad is the sum of its contributions."""
    st = ctrl.stepper
    out = []
    for child in targets:
        users = st.users(child)
        uses = sum(u._prev.count(child) for u in users)
        cname = st.name(child)
        if uses < 2:
            continue
        shares = st.contributions(child)
        done = {id(record.node) for record, _ in shares}
        pending = [u for u in users if id(u) not in done]
        terms = " + ".join(f"{format_number(a)} (from {st.name(r.node)})" for r, a in shares)
        total = "?" if child in hidden else format_number(child.grad)
        by = _list(
            st.name(u) + ("" if u._prev.count(child) < 2 else f" ({_times(u._prev.count(child))})") for u in users
        )
        text = (
            f"<b>{_e(cname)} is used {_times(uses)}</b> (by {by}), "
            f"so its grad is the <b>sum</b> of what each use passes back (that is why backward "
            f"uses <span style=\"font-family:'{MONO_FAMILY}'\">+=</span>):"
        )
        out.append(style.heading(f"why {field_of(cname)} is a sum"))
        out.append(style.para(text))
        if child not in hidden:
            out.append(style.para(style.mono(f"{field_of(cname)} = {terms} = {total}", bold=True)))
        if pending:
            out.append(
                style.para(f"{style.status_word(PARTIAL)} — still to come: {_list(st.name(u) for u in pending)}.")
            )
        else:
            out.append(style.para(f"{style.status_word(FINAL)} — every use has passed its share."))
    return "".join(out)


def _next_line(ctrl, style):
    st = ctrl.stepper
    if st.done:
        return style.para(
            "<b>Done.</b> Every grad is final: the same numbers as one call of "
            "<b>backward()</b>. Step back (Shift+F10) or scrub the timeline to replay.",
            color=style.good,
        )
    node = st.current
    return style.para(f"Next (F10): {style.mono(formula(st, node))} runs its _backward.", color=style.muted)


def _banners(ctrl, style):
    parts = []
    if ctrl.notice:
        parts.append(style.banner(_e(ctrl.notice), style.partial))
    if ctrl.shown_stop_reason:
        parts.append(style.banner("Stopped: " + _e(ctrl.shown_stop_reason), style.bad))
    replay = getattr(ctrl.stepper, "replay", None)
    lines = replay.hint_lines() if replay is not None else []
    if lines:
        shown = "<br>".join(f"Hint {i} of 4: {_e(line)}" for i, line in enumerate(lines, 1))
        parts.append(style.banner(shown, style.partial))
    return "".join(parts)


def _quiz(ctrl, style):
    parts = []
    for ok, text in ctrl.quiz_feedback:
        parts.append(style.para(("✔ " if ok else "✘ ") + _e(text), color=style.good if ok else style.bad))
    question = ctrl.quiz_question()
    if question:
        parts.append(style.banner("Quiz: " + _e(question), style.negative))
    return "".join(parts)


def forward_html(ctrl, record, style):
    fs = ctrl.forward_stepper
    n = len(fs.order)
    if record is None:
        parts = [style.title(f"Forward pass · 0 of {n} computed")]
        parts.append(
            style.para(
                "The leaves (inputs and constants) are known. Every other node is "
                "<b>?</b> until it is computed from its inputs, in topological order "
                "(inputs first). Press <b>F7</b> to compute the next node."
            )
        )
    else:
        name = fs.name(record.node)
        text = record.text
        if name.startswith("("):  # '(x·y) = x · y = ...' says the same thing twice
            text = text.split(" = ", 1)[1]
        parts = [style.title(f"Forward {record.index + 1} of {n} · {_e(name)} is computed")]
        parts.append(style.para(style.mono(text, bold=True)))
        parts.append(style.para("Its inputs are already known, because the order is topological."))
    if fs.done:
        parts.append(
            style.para(
                f"<b>Forward pass done:</b> {_e(fs.name(fs.root))} = "
                f"{format_number(fs.root.data)}. Now the backward pass: press <b>F10</b>.",
                color=style.good,
            )
        )
    else:
        node = fs.current
        parts.append(style.para(f"Next (F7): {style.mono(forward_formula(node, fs.name))}", color=style.muted))
    return style.page(_banners(ctrl, style) + "".join(parts))


def describe_head(ctrl, style):
    """The part of `describe` that must be in view whole (None: no such part now)."""
    if ctrl.phase == "backward" and ctrl.last_record is not None:
        return style.page(step_head(ctrl, ctrl.last_record, style))
    return None


def describe(ctrl, style):
    """The explanation pane's HTML for the controller's current state."""
    if ctrl.phase == "forward":
        return forward_html(ctrl, ctrl.last_forward, style)
    if ctrl.phase == "backward":
        record = ctrl.last_record
        return step_html(ctrl, record, style) if record is not None else start_html(ctrl, style)
    return idle_html(ctrl, style)
