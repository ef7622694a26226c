"""core/sandbox/: hostile code, run boxed and (where the README says so) unboxed.

Each test is one of the attacks a submission can try; it ends as the README's
"what holds where" table says. A `box` parameter runs the same attack in a
bubblewrap box (`BOX`) and with today's supervisor (`NO_BOX`, forced by
box=False); the boxed runs are skipped only where no box can be had here
(sandbox.box_problem() says why)."""

import json
import os
import signal
import socket
import sys
import textwrap

import pytest

from core import sandbox
from core.sandbox import box as sandbox_box
from core.sandbox import supervisor, warm_boxes
from tests.core import box_probe

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BOX = pytest.param(True, id="box", marks=pytest.mark.skipif(sandbox.box_problem() is not None, reason="no box here"))
NO_BOX = pytest.param(False, id="no-box")
# the same attack as the second submission of a warm box (sandbox.WarmBox), a third run after it
WARM = pytest.param("warm", id="warm", marks=pytest.mark.skipif(sandbox.box_problem() is not None, reason="no box"))
SLOW_OK = 120.0


def harness(tmp_path, code):
    """A harness whose body is `code`; `report(x)` writes x as JSON to the report channel."""
    path = tmp_path / "harness.py"
    path.write_text(
        "import json, os, sys\n"
        "_fd = int(sys.argv[1])\n"
        "def report(x):\n"
        "    os.write(_fd, (json.dumps(x) + '\\n').encode())\n" + textwrap.dedent(code),
        encoding="utf-8",
    )
    return str(path)


def reports(result):
    return [json.loads(line) for line in result.data.decode().splitlines()]


def run(tmp_path, code, box, **kwargs):
    kwargs.setdefault("timeout", SLOW_OK)
    if box != "warm":
        return sandbox.run_boxed(harness(tmp_path, code), box=box, **kwargs)
    return run_warm(tmp_path, code, **kwargs)


LOOK = """
import ctypes
found = {"pids": sorted(int(p) for p in os.listdir("/proc") if p.isdigit() and int(p) != os.getpid())}
for top in ("/box", "/tmp", "/dev/shm"):
    found[top] = sorted(os.listdir(top))
for kind in ("shm", "msg", "sem"):
    with open("/proc/sysvipc/" + kind) as f:
        found[kind] = f.read().splitlines()[1:]
found["modules"] = sorted(m for m in sys.modules if m.startswith(("attack", "evil", "alice")))
found["print"] = repr(print)
found["dumps"] = json.dumps([1])
found["shared"] = sys.modules["bps_shared"].VALUE
report(found)
"""


def run_warm(tmp_path, code, **kwargs):
    """`code` as the second of three submissions in one warm box; the third sees nothing of it."""
    shared = tmp_path / "shared"
    shared.mkdir(exist_ok=True)
    (shared / "__init__.py").write_text("VALUE = 'ours'\n")
    first, third = tmp_path / "first", tmp_path / "third"
    first.mkdir(exist_ok=True)
    third.mkdir(exist_ok=True)
    with sandbox.warm():
        opts = {"box": True, "shared": {"bps_shared": str(shared)}, "preload": ["bps_shared"], "timeout": SLOW_OK}
        opts["disk"] = kwargs.get("disk", sandbox.DISK)  # the size of the box: one box for the three
        before = sandbox.run_boxed(harness(first, "report(os.getpid())\n"), **opts)
        result = sandbox.run_boxed(harness(tmp_path, code), **{**opts, **kwargs})
        after = sandbox.run_boxed(harness(third, LOOK), **opts)
        (warm_box,) = [b for b in warm_boxes._local.warm.values() if b.alive()]
        assert warm_box.runs == 3  # one box served the three
    assert before.ended == "exit" and after.ended == "exit", (before, after)
    (seen,) = reports(after)
    assert seen == {
        "pids": [1], "/box": ["harness.py"], "/tmp": [], "/dev/shm": [], "shm": [], "msg": [], "sem": [],
        "modules": [], "print": "<built-in function print>", "dumps": "[1]", "shared": "ours",
    }, seen  # fmt: skip
    return result


TRY_READ = """
    def try_read(path):
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                return f.read()
        except OSError as e:
            return type(e).__name__
"""


# -- the report channel, the request, the output ------------------------------------------------


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_the_harness_gets_its_request_its_files_and_a_report_channel(tmp_path, box):
    engine = tmp_path / "alice.py"
    engine.write_text("x = 1\n")
    code = """
    req = json.loads(sys.stdin.read())
    print("printed by the harness")
    report({"req": req, "args": sys.argv[2:], "files": sorted(os.listdir(".")), "engine": open("alice.py").read()})
    """
    result = run(tmp_path, code, box, args=["a", "b"], files={"alice.py": str(engine)}, stdin=b'{"points": [1.5]}')
    assert result.ended == "exit" and result.code == 0 and result.boxed is (box is not False)
    (got,) = reports(result)
    assert got == {
        "req": {"points": [1.5]},
        "args": ["a", "b"],
        "files": ["alice.py", "harness.py"],
        "engine": "x = 1\n",
    }
    assert "printed by the harness" in result.output and result.message() == ""


def test_without_bwrap_there_is_no_box_and_it_is_said_once(monkeypatch, capsys):
    monkeypatch.setattr(sandbox_box, "bwrap_path", lambda: None)
    sandbox.forget_box_problem()
    monkeypatch.setattr(sandbox_box, "_said", set())
    try:
        assert "bubblewrap" in sandbox.box_problem()
        assert sandbox.say_once() == sandbox.say_once()
        assert capsys.readouterr().err.count("bubblewrap") == 1
        with pytest.raises(OSError, match="bubblewrap"):
            sandbox.run_boxed(__file__, box=True)
    finally:
        sandbox.forget_box_problem()


POISON = """
import builtins, ctypes, stat, subprocess
for place in ("/box/left.txt", "/tmp/left.txt", "/dev/shm/left.txt"):
    with open(place, "w") as f:
        f.write("for the next one")
os.makedirs("/tmp/locked/inner")
open("/tmp/locked/inner/x", "w").close()
os.chmod("/tmp/locked/inner", 0)
os.chmod("/tmp/locked", stat.S_IRUSR | stat.S_IXUSR)
with open("attack_mod.py", "w") as f:
    f.write("X = 1\\n")
sys.path.insert(0, os.getcwd())
import attack_mod
sys.modules["evil"] = attack_mod
builtins.print = lambda *a, **k: None
json.dumps = lambda *a, **k: "forged"
sys.modules["bps_shared"].VALUE = "theirs"
libc = ctypes.CDLL(None)
ids = [libc.shmget(0, 4096, 0o1666), libc.msgget(0, 0o1666), libc.semget(0, 1, 0o1666)]
subprocess.Popen(["/bin/sh", "-c", "sleep 300 &"], start_new_session=True)
subprocess.Popen(["sleep", "300"])
os.write(_fd, ("%s\\n" % ids).encode())
"""


@pytest.mark.skipif(sandbox.box_problem() is not None, reason="no box here")
def test_a_warm_box_carries_nothing_of_one_submission_to_the_next(tmp_path):
    # files in every writable place (one in a folder made unwritable), a module imported, builtins and a
    # library patched, the studio's shared module changed, System V IPC objects, processes left behind:
    # run_warm's third submission (same box) sees none of it, and the box is the same one
    result = run_warm(tmp_path, POISON, timeout=60)
    assert result.ended == "exit" and result.code == 0, result
    ids = json.loads(result.data.decode())
    assert all(i >= 0 for i in ids), ids  # each IPC object was made
    assert result.killed >= 2  # the two sleeps


# -- what a submission can read and write ----------------------------------------------------------


@pytest.mark.parametrize("box", [BOX, WARM])
def test_a_submission_reads_no_classmate_no_teacher_file_no_home_no_studio(tmp_path, box):
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "alice.py").write_text("# alice's engine\n")
    (klass / "bob.py").write_text("SECRET_BOB = 1\n")
    (tmp_path / "answers.txt").write_text("the teacher's answers\n")
    code = (
        TRY_READ
        + f"""
    found = {{
        "classmate": try_read({str(klass / "bob.py")!r}),
        "classmate_relative": try_read("../bob.py"),
        "teacher": try_read({str(tmp_path / "answers.txt")!r}),
        "studio": try_read({os.path.join(ROOT, "README.md")!r}),
        "studio_core": try_read({os.path.join(ROOT, "core", "sandbox.py")!r}),
        "home": sorted(os.listdir(os.path.expanduser("~"))),
        "host_home": try_read({os.path.join(os.path.expanduser("~"), ".bashrc")!r}),
        "passwd": try_read("/etc/passwd"),
    }}
    try:
        found["root_home"] = sorted(os.listdir({os.path.expanduser("~")!r}))
    except OSError as e:
        found["root_home"] = type(e).__name__
    report(found)
    """
    )
    result = run(tmp_path, code, box, files={"alice.py": str(klass / "alice.py")})
    (found,) = reports(result)
    for key in ("classmate", "classmate_relative", "teacher", "studio", "studio_core", "host_home", "passwd"):
        assert found[key] in ("FileNotFoundError", "PermissionError"), (key, found[key])
    assert found["home"] == ["alice.py", "harness.py"]  # ~ in the box is the scratch folder
    python_parts = {p for d in supervisor.python_dirs() for p in d.split(os.sep)}  # only the path to Python shows
    assert found["root_home"] == "FileNotFoundError" or set(found["root_home"]) <= python_parts


@pytest.mark.parametrize("box", [BOX, WARM])
def test_a_submission_cannot_change_a_classmate_the_studio_or_home(tmp_path, box):
    klass = tmp_path / "class"
    klass.mkdir()
    (klass / "alice.py").write_text("# alice\n")
    (klass / "bob.py").write_text("# bob's right engine\n")
    studio = tmp_path / "studio_core"  # a copy stands in for the studio's core, bound read-only as the checker does
    studio.mkdir()
    (studio / "battery.py").write_text("CASES = []\n")
    home_file = os.path.join(os.path.expanduser("~"), f"bps-pwned-{os.getpid()}.txt")
    # a warm box sends their folders as copies; the studio's own folder is its `shared`, bound read-only
    inside = "/.harness/bps_shared/__init__.py" if box == "warm" else "studio/core/battery.py"
    code = f"""
    out = {{}}
    for name, path in [("classmate", {str(klass / "bob.py")!r}), ("studio", {inside!r}),
                       ("studio_host", {str(studio / "battery.py")!r}), ("home", {home_file!r}),
                       ("own", "alice.py")]:
        try:
            with open(path, "a") as f:
                f.write("import os; os.system('echo pwned')\\n")
            out[name] = "written"
        except OSError as e:
            out[name] = type(e).__name__
    report(out)
    """
    try:
        result = run(tmp_path, code, box, files={"alice.py": str(klass / "alice.py"), "studio/core": str(studio)})
        (out,) = reports(result)
        assert out["own"] == "written"  # its own copy, in its scratch folder
        assert out["classmate"] != "written" and out["studio"] != "written" and out["studio_host"] != "written"
        assert out["home"] != "written"
        assert (klass / "bob.py").read_text() == "# bob's right engine\n"
        assert (klass / "alice.py").read_text() == "# alice\n"  # the host's file is not its copy
        assert (studio / "battery.py").read_text() == "CASES = []\n"
        assert not os.path.exists(home_file)
    finally:
        if os.path.exists(home_file):
            os.remove(home_file)


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_the_teachers_environment_does_not_reach_a_submission(tmp_path, box, monkeypatch):
    monkeypatch.setenv("TEACHER_API_TOKEN", "sk-planted-secret")
    result = run(tmp_path, "report(dict(os.environ))\n", box)
    (env,) = reports(result)
    assert "TEACHER_API_TOKEN" not in env and "sk-planted-secret" not in json.dumps(env)
    assert set(env) <= set(sandbox.child_env()) | {"HOME", "TMPDIR", "PWD", "BPS_BOX"}


@pytest.mark.parametrize("box", [BOX, WARM])
def test_a_submission_opens_no_socket(tmp_path, box):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(0.05)
    port = listener.getsockname()[1]
    code = f"""
    import socket
    out = {{}}
    for name, addr in [("local", ("127.0.0.1", {port})), ("web", ("1.1.1.1", 80))]:
        try:
            socket.create_connection(addr, timeout=3).close()
            out[name] = "connected"
        except OSError as e:
            out[name] = type(e).__name__
    report(out)
    """
    try:
        result = run(tmp_path, code, box)
        (out,) = reports(result)
        assert out == {"local": "ConnectionRefusedError", "web": "OSError"}
        with pytest.raises(TimeoutError):
            listener.accept()
    finally:
        listener.close()


# -- killing and stopping --------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP], ids=["kill", "stop"])
@pytest.mark.parametrize("box", [BOX, WARM])
def test_a_submission_cannot_kill_or_stop_its_supervisor_or_the_studio(tmp_path, box, sig):
    mark = box_probe.marker()
    code = box_probe.sleeper(mark) + textwrap.dedent(f"""
    if os.getcwd() != "/box" or os.getppid() != 1:  # never on the host, whatever happens
        raise SystemExit("not in a box")
    done = {{}}
    for pid in [os.getppid(), 1, {os.getpid()}, {os.getppid()}, *[int(p) for p in os.listdir("/proc") if p.isdigit()]]:
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, {int(sig)})
            done[pid] = "sent"
        except OSError as e:
            done[pid] = type(e).__name__
    report({{"ppid": os.getppid(), "done": done}})
    """)
    result = run(tmp_path, code, box, timeout=30)
    (got,) = reports(result)
    assert got["ppid"] == 1  # its supervisor is its box's PID 1 ...
    assert result.ended == "exit" and result.code == 0, result  # ... which the kernel does not let it kill or stop
    assert got["done"][str(os.getpid())] == "ProcessLookupError"  # the studio's PID means nothing in the box
    assert f"started {mark}" in result.output and not box_probe.running(mark)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGSTOP], ids=["kill", "stop"])
def test_without_a_box_a_killed_supervisor_is_said_truly_and_what_it_left_is_ended(tmp_path, sig):
    mark = box_probe.marker()
    code = box_probe.sleeper(mark) + f"os.kill(os.getppid(), {int(sig)})\nimport time\ntime.sleep(60)\n"
    result = run(tmp_path, code, False, timeout=20)
    assert result.ended == "lost" and result.seconds < 20, result
    assert "supervisor was stopped or killed after" in result.message()
    assert "within" not in result.message()
    assert f"started {mark}" in result.output
    assert not box_probe.running(mark)


@pytest.mark.parametrize("detach", [False, True], ids=["fork", "setsid-double-fork"])
@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_no_process_outlives_the_run(tmp_path, box, detach):
    mark = box_probe.marker()
    result = run(tmp_path, box_probe.sleeper(mark, detach) + "report('done')\n", box)
    assert reports(result) == ["done"] and f"started {mark}" in result.output
    assert not box_probe.running(mark)


# -- limits per submission -------------------------------------------------------------------------

ALLOCATE = """
import time
held = []
pids = []
for i in range({n}):
    pid = os.fork()
    if pid == 0:
        held.append(bytearray({each}))  # touched: resident
        time.sleep(30)
        os._exit(0)
    pids.append(pid)
for pid in pids:
    os.waitpid(pid, 0)
report("all held")
"""


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_six_processes_each_allocating_are_bounded_together(tmp_path, box):
    code = ALLOCATE.format(n=6, each=200 << 20)  # 1.2 GB together; 200 MB each is under the per-process limit
    result = run(tmp_path, code, box, memory=512 << 20, timeout=60)
    assert result.ended == "memory", result
    assert "512 MB" in result.message() and "all held" not in result.data.decode()


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_processes_are_counted_per_submission(tmp_path, box):
    code = ALLOCATE.format(n=30, each=1)
    result = run(tmp_path, code, box, processes=8, timeout=60)
    assert result.ended == "processes", result
    assert "more than 8 processes" in result.message()


@pytest.mark.parametrize("box", [BOX, WARM])
def test_filling_the_disk_is_bounded_and_leaves_nothing(tmp_path, box):
    code = """
    written = 0
    chunk = b"x" * (1 << 20)
    for place in ("fill-a.bin", "/tmp/fill-b.bin", os.path.expanduser("~/fill-c.bin")):
        try:
            with open(place, "wb") as f:
                for _ in range(200):
                    f.write(chunk)
                    written += len(chunk)
        except OSError as e:
            report({"place": place, "error": type(e).__name__})
    report({"written": written})
    """
    result = run(tmp_path, code, box, disk=16 << 20, output=1 << 30)
    got = reports(result)
    assert got[-1]["written"] <= 2 * (16 << 20)  # /box and /tmp: two tmpfs of `disk` bytes; ~ is /box
    assert {g.get("error") for g in got[:-1]} == {"OSError"}  # ENOSPC
    leftovers = [n for n in os.listdir("/tmp") if n.startswith("fill-")] + [
        n for n in os.listdir(os.path.expanduser("~")) if n.startswith("fill-")
    ]
    assert not leftovers


@pytest.mark.parametrize("box", [BOX, NO_BOX])
def test_a_writable_folder_is_capped_in_total_not_only_per_file(tmp_path, box):
    # a lecture cell's own folder is on the host's disk: many files under the per-file cap must not fill it
    shared = tmp_path / "run"
    shared.mkdir()
    code = """
    import time
    chunk = b"x" * (1 << 20)
    for k in range(400):
        with open(os.path.join("run", f"part{k}.bin"), "wb") as f:
            for _ in range(2):
                f.write(chunk)
        time.sleep(0.02)  # at most ~100 MB/s: the supervisor looks every 0.2 s
    report({"wrote": "everything"})
    """
    result = run(tmp_path, code, box, disk=16 << 20, output=4 << 20, writable={"run": str(shared)})
    assert result.ended == "disk" and "MB into its folder" in result.message(), result
    assert not reports(result)  # ended before it could write its 800 MB
    assert sum(f.stat().st_size for f in shared.iterdir()) < 200 << 20  # the 32 MB cap, give or take one look


def test_without_a_box_one_file_is_capped_and_the_scratch_folder_is_removed(tmp_path):
    code = """
    try:
        with open("fill.bin", "wb") as f:
            for _ in range(200):
                f.write(b"x" * (1 << 20))
    except OSError as e:
        report({"error": type(e).__name__, "at": os.path.getsize("fill.bin"), "cwd": os.getcwd()})
    """
    result = run(tmp_path, code, False, output=8 << 20)
    (got,) = reports(result)
    assert got["error"] == "OSError" and got["at"] <= 8 << 20  # EFBIG
    assert not os.path.exists(got["cwd"])


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_a_sleep_is_stopped_at_the_time_limit_and_named(tmp_path, box):
    result = run(tmp_path, "import time\ntime.sleep(60)\n", box, timeout=1)
    assert result.ended == "timeout" and "within 1 s" in result.message()


@pytest.mark.parametrize("box", [BOX, WARM, NO_BOX])
def test_the_report_channel_is_capped_and_a_flood_of_prints_too(tmp_path, box):
    code = "import sys\nsys.stdout.write('p' * (50 << 20))\nsys.stdout.flush()\nreport('after')\n"
    result = run(tmp_path, code, box, output=1 << 20)
    assert len(result.output) <= 8100 and result.output.startswith("ppp")


def test_run_supervised_keeps_its_old_shape(tmp_path):
    log = tmp_path / "log.txt"
    path = harness(tmp_path, "report(sys.stdin.readline().strip())\nprint('hi')\n")
    data, status = sandbox.run_supervised([path], [], 20.0, str(tmp_path), str(log), key="k3y")
    assert data == b'"k3y"\n' and status["code"] == 0 and not status["timed_out"]
    assert log.read_text() == "hi\n"


def test_the_sandbox_has_one_home_and_a_public_api():
    """Its names are imported from core.sandbox, never through the checker's runner (their old
    home), and every name the package lists resolves."""
    from core.foreign import runner

    for name in ("run_supervised", "limit_child", "children_of", "end_descendants"):
        assert not hasattr(runner, name)
    for name in sandbox.__all__:
        assert getattr(sandbox, name) is not None
    assert sys.modules["core.sandbox"] is sandbox


def test_the_supervisor_imports_only_the_standard_library():
    """The box's PID 1 runs as `python -I -S supervisor.py` in a box that holds only the Python
    installation: an import of the studio (or of site-packages) there would end every run."""
    import ast

    tree = ast.parse(open(supervisor.__file__, encoding="utf-8").read())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert names - {"__future__"} <= sys.stdlib_module_names, names - sys.stdlib_module_names


def test_a_warm_box_empties_its_folders_but_keeps_a_python_installed_under_tmp(tmp_path):
    # a venv under /tmp is bound read-only inside the box's /tmp: emptying /tmp between two
    # submissions removes everything else, the way to it included, and keeps it
    venv = tmp_path / "a" / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").write_text("#")
    (tmp_path / "a" / "left.txt").write_text("x")
    locked = tmp_path / "locked" / "inner"
    locked.mkdir(parents=True)
    (locked / "x").write_text("x")
    locked.chmod(0)
    (tmp_path / "link").symlink_to(venv)
    assert supervisor._empty(str(tmp_path), [str(venv)])
    assert sorted(os.listdir(tmp_path)) == ["a"] and os.listdir(tmp_path / "a") == ["venv"]
    assert (venv / "bin" / "python").read_text() == "#"
