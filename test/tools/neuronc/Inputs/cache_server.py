#!/usr/bin/env python3
"""Start and stop a real nginx serving a WebDAV PUT root: the shared compile
cache of `neuronc --cache-url` for the lit tests.

Usage:
  cache_server.py start DIR   start nginx on 127.0.0.1 on a free port, with its
                              config, root, logs and pid file under DIR; print
                              and write DIR/url (http://127.0.0.1:PORT/neuronc)
  cache_server.py stop DIR    stop it and check that it is gone
  cache_server.py port        print a port nobody listens on

nginx runs in the foreground (`daemon off`) under a small supervisor that
stops it when `stop` asks, when the shell that ran `start` (the lit test's
script) exits, pass or fail, or after a deadline: a failing test never leaves
nginx running. So run `start` directly from the test's shell, not inside
`$(...)` (whose subshell exits at once); read the URL from DIR/url. Without /usr/sbin/nginx, `start` fails (scripts/install-deps.sh
installs it): the test must not pass without a server.
"""

import os
import signal
import socket
import subprocess
import sys
import time

NGINX = "/usr/sbin/nginx"
PREFIX = "neuronc"       # the URL path under which the cache lives
DEADLINE_S = 900         # the supervisor never outlives this
READY_S = 20             # how long nginx may take to listen

CONFIG = """\
{user}
daemon off;
master_process on;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/logs/error.log info;
events {{ worker_connections 128; }}
http {{
    access_log {d}/logs/access.log;
    client_body_temp_path {d}/tmp/body;
    proxy_temp_path {d}/tmp/proxy;
    fastcgi_temp_path {d}/tmp/fastcgi;
    uwsgi_temp_path {d}/tmp/uwsgi;
    scgi_temp_path {d}/tmp/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {d}/root;
        client_max_body_size 0;
        location / {{
            dav_methods PUT;
            create_full_put_path on;
            dav_access user:rw group:r all:r;
        }}
        # GET only: a PUT is answered 405 Not Allowed.
        location /readonly/ {{ }}
        # Every request fails.
        location /broken/ {{ return 500; }}
    }}
}}
"""


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def listening(port):
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is not alive.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def read(path):
    with open(path) as f:
        return f.read().strip()


def supervise(d, watched):
    """Runs nginx until `stop`, the watched shell's exit, or the deadline."""
    nginx = subprocess.Popen([NGINX, "-p", d, "-c", d + "/nginx.conf", "-e",
                              d + "/logs/error.log"],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=open(d + "/logs/nginx.stderr", "w"))
    with open(d + "/supervisor.pid", "w") as f:
        f.write(str(os.getpid()))
    end = time.time() + DEADLINE_S
    why = "deadline"
    while time.time() < end:
        if nginx.poll() is not None:
            why = "nginx exited with %d" % nginx.returncode
            break
        if os.path.exists(d + "/stop"):
            why = "stop"
            break
        if not alive(watched):
            why = "the test's shell exited"
            break
        time.sleep(0.1)
    if nginx.poll() is None:
        nginx.send_signal(signal.SIGTERM)  # fast shutdown of master and workers
        try:
            nginx.wait(10)
        except subprocess.TimeoutExpired:
            nginx.kill()
            nginx.wait()
    with open(d + "/stopped", "w") as f:
        f.write(why + "\n")


def start(d):
    if not os.access(NGINX, os.X_OK):
        sys.exit("cache_server.py: %s is missing; scripts/install-deps.sh installs "
                 "Debian's nginx" % NGINX)
    d = os.path.abspath(d)
    for sub in ("root/" + PREFIX, "logs", "tmp"):
        os.makedirs(os.path.join(d, sub), exist_ok=True)
    watched = os.getppid()
    # The port is free when chosen; another process may take it before nginx
    # binds it, so a start that does not come up is tried again.
    for attempt in range(5):
        for f in ("stop", "stopped", "nginx.pid", "supervisor.pid"):
            if os.path.exists(os.path.join(d, f)):
                os.remove(os.path.join(d, f))
        port = free_port()
        with open(d + "/nginx.conf", "w") as f:
            # Workers run as root only when the master does (they must write
            # the root this script created).
            f.write(CONFIG.format(d=d, port=port,
                                  user="user root root;" if os.geteuid() == 0 else ""))
        child = os.fork()
        if child == 0:
            # The supervisor: its own session, no inherited output (lit waits
            # for the test's pipes to close).
            os.setsid()
            null = os.open(os.devnull, os.O_RDWR)
            for fd in (0, 1, 2):
                os.dup2(null, fd)
            try:
                supervise(d, watched)
            finally:
                os._exit(0)
        end = time.time() + READY_S
        while time.time() < end and not os.path.exists(d + "/stopped"):
            if os.path.exists(d + "/nginx.pid") and listening(port):
                url = "http://127.0.0.1:%d/%s" % (port, PREFIX)
                with open(d + "/url", "w") as f:
                    f.write(url + "\n")
                print(url)
                return 0
            time.sleep(0.05)
        stop(d, quiet=True)
    log = ""
    if os.path.exists(d + "/logs/error.log"):
        log = read(d + "/logs/error.log")
    sys.exit("cache_server.py: nginx did not start; its log:\n" + log)


def stop(d, quiet=False):
    d = os.path.abspath(d)
    open(d + "/stop", "w").close()
    end = time.time() + 15
    while time.time() < end and not os.path.exists(d + "/stopped"):
        time.sleep(0.05)
    if not os.path.exists(d + "/stopped"):
        if os.path.exists(d + "/supervisor.pid"):
            try:
                os.kill(int(read(d + "/supervisor.pid")), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        sys.exit("cache_server.py: the supervisor did not stop nginx")
    # The master is gone, and with it its workers.
    pid_file = d + "/nginx.pid"
    if os.path.exists(pid_file):
        try:
            pid = int(read(pid_file))
        except ValueError:
            pid = None
        if pid and alive(pid):
            sys.exit("cache_server.py: nginx %d is still running" % pid)
    if not quiet:
        print("stopped: " + read(d + "/stopped"))
    return 0


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "port":
        print(free_port())
        return 0
    if len(sys.argv) != 3 or sys.argv[1] not in ("start", "stop"):
        sys.exit(__doc__)
    return start(sys.argv[2]) if sys.argv[1] == "start" else stop(sys.argv[2])


if __name__ == "__main__":
    sys.exit(main())
