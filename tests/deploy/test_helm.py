"""The Helm chart (deploy/helm/mazziere), held to the Kustomize production overlay it stands for.

``helm template`` with the chart's default values must render the objects ``kustomize build`` makes of
deploy/k8s/overlays/production, object by object, bar two things that legitimately differ: the overlay's Namespace
(a Helm release is installed into a namespace that exists already) and the ``app.kubernetes.io/managed-by`` label
(kustomize's labels say ``kustomize``; ``helm install`` sets ``Helm`` itself). The chart's optional part (the
ServiceMonitors) must equal the overlay with that component listed. Non-default values
(deploy/helm/mazziere/ci/*-values.yaml) lint, render objects kubernetes-validate finds valid and kube-score finds
nothing critical in, and do what they say. ``make test`` builds the pinned helm, kustomize and kube-score into
``.venv/bin`` (``HELM=...`` points at another helm).
"""

from __future__ import annotations

import difflib
import shutil
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from mazziere.services.config import Config
from tests.deploy.test_manifests import (
    DEPLOY,
    K8S,
    KNOWN_VARIABLES,
    Rendered,
    render,
    test_every_pod_stops_within_its_termination_grace_period,
    tool,
)

CHART = DEPLOY / "helm" / "mazziere"
VALUES_FILES = {path.name.removesuffix("-values.yaml"): path for path in sorted((CHART / "ci").glob("*-values.yaml"))}
NAMESPACE = "mazziere"
"""The production overlay's namespace, which the chart is rendered into to compare them."""
KUBE_VERSION = "1.27.0"
"""The oldest Kubernetes the chart allows (Chart.yaml's kubeVersion). A helm built by ``go install`` carries no
cluster version of its own and would assume 1.20, which the chart refuses."""
MANAGED_BY = "app.kubernetes.io/managed-by"
DEPLOYMENTS = {"mazziere": "engine", "mazziere-gateway": "gateway", "mazziere-host": "host"}
TRACING_VARIABLES = frozenset(
    {
        "OTEL_SERVICE_NAME",
        "OTEL_TRACES_EXPORTER",
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "OTEL_EXPORTER_OTLP_PROTOCOL",
        "OTEL_TRACES_SAMPLER",
        "OTEL_TRACES_SAMPLER_ARG",
        "OTEL_RESOURCE_ATTRIBUTES",
    }
)


def test_the_values_files_are_there() -> None:
    assert set(VALUES_FILES) == {"custom", "sqlite"}, VALUES_FILES


# -- rendering ---------------------------------------------------------------------------------------------------


@cache
def helm() -> str:
    exe = tool("helm", "HELM")
    if exe is None:
        pytest.skip("helm is not installed (make test builds the pinned one with Go into .venv/bin; or set HELM=...)")
    return exe


def run_helm(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([helm(), *args], capture_output=True, text=True, timeout=120)


def template_args(*args: str, namespace: str = NAMESPACE) -> list[str]:
    return ["template", "mazziere", str(CHART), "--namespace", namespace, "--kube-version", KUBE_VERSION, *args]


def helm_template(*args: str, namespace: str = NAMESPACE) -> tuple[dict[str, Any], ...]:
    """``helm template`` of the chart with these arguments, parsed."""
    done = run_helm(*template_args(*args, namespace=namespace))
    if done.returncode != 0:
        pytest.fail(f"helm template {' '.join(args)} failed:\n{done.stderr}", pytrace=False)
    return tuple(doc for doc in yaml.safe_load_all(done.stdout) if doc)


def values(name: str) -> dict[str, Any]:
    loaded = yaml.safe_load(VALUES_FILES[name].read_text())
    assert isinstance(loaded, dict)
    return loaded


RENDERS = ("default", *VALUES_FILES)


@pytest.fixture(scope="module")
def renders() -> dict[str, Rendered]:
    """The chart with its defaults (in the overlay's namespace) and with each values file (in another one)."""
    found = {"default": Rendered("default", helm_template())}
    for name, path in VALUES_FILES.items():
        found[name] = Rendered(name, helm_template("--values", str(path), namespace="games"))
    return found


def production_with(scratch: Path, components: tuple[str, ...]) -> Path:
    """A copy of deploy/k8s whose production overlay also lists these optional components."""
    tree = scratch / "k8s"
    shutil.copytree(K8S, tree)
    path = tree / "overlays" / "production" / "kustomization.yaml"
    kustomization = yaml.safe_load(path.read_text())
    listed = kustomization["components"]
    for name in components:
        assert f"../../components/{name}" not in listed, f"production lists {name} already: update this test"
        assert (tree / "components" / name).is_dir(), name
    listed.extend(f"../../components/{name}" for name in components)
    path.write_text(yaml.safe_dump(kustomization, sort_keys=False))
    return path.parent


def production_without(scratch: Path, component: str) -> Path:
    """A copy of deploy/k8s whose production overlay no longer lists this component."""
    tree = scratch / "k8s"
    shutil.copytree(K8S, tree)
    path = tree / "overlays" / "production" / "kustomization.yaml"
    kustomization = yaml.safe_load(path.read_text())
    listed = kustomization["components"]
    assert f"../../components/{component}" in listed, f"production does not list {component}: update this test"
    listed.remove(f"../../components/{component}")
    path.write_text(yaml.safe_dump(kustomization, sort_keys=False))
    return path.parent


def keyed(objects: tuple[dict[str, Any], ...], source: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    found: dict[tuple[str, str, str], dict[str, Any]] = {}
    for obj in objects:
        key = (obj["apiVersion"], obj["kind"], obj["metadata"]["name"])
        assert key not in found, f"{source}: {key} twice"
        found[key] = obj
    return found


def as_helm_installs(overlay: tuple[dict[str, Any], ...]) -> tuple[dict[str, Any], ...]:
    """The overlay's objects less what a Helm release legitimately does otherwise: no Namespace (the release is
    installed into an existing one; the chart renders every object into it), no managed-by label (``helm
    install`` sets its own)."""
    (namespace,) = [obj for obj in overlay if obj["kind"] == "Namespace"]
    kept = []
    for obj in overlay:
        if obj is namespace:
            continue
        assert obj["metadata"]["namespace"] == namespace["metadata"]["name"] == NAMESPACE
        obj = {**obj, "metadata": {**obj["metadata"]}}
        labels = {k: v for k, v in obj["metadata"].get("labels", {}).items() if k != MANAGED_BY}
        if labels:
            obj["metadata"]["labels"] = labels
        else:
            obj["metadata"].pop("labels", None)
        kept.append(obj)
    return tuple(kept)


def assert_same_objects(chart: tuple[dict[str, Any], ...], overlay: tuple[dict[str, Any], ...]) -> None:
    ours, theirs = keyed(chart, "the chart"), keyed(as_helm_installs(overlay), "the overlay")
    assert sorted(ours) == sorted(theirs), "the chart and the overlay render different objects"
    for key in sorted(ours):
        assert MANAGED_BY not in ours[key]["metadata"].get("labels", {}), f"{key}: helm install sets managed-by"
        if ours[key] != theirs[key]:
            diff = difflib.unified_diff(
                yaml.safe_dump(theirs[key]).splitlines(),
                yaml.safe_dump(ours[key]).splitlines(),
                "kustomize build overlays/production",
                "helm template deploy/helm/mazziere",
                lineterm="",
            )
            pytest.fail(f"{key} differs:\n" + "\n".join(diff), pytrace=False)


# -- the chart and the overlay -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", RENDERS)
def test_helm_lint_finds_nothing(name: str) -> None:
    args = [] if name == "default" else ["--values", str(VALUES_FILES[name])]
    done = run_helm("lint", "--strict", str(CHART), "--kube-version", KUBE_VERSION, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 chart(s) failed" in done.stdout, done.stdout


def test_the_default_render_is_the_production_overlay(renders: dict[str, Rendered]) -> None:
    assert_same_objects(renders["default"].objects, render(K8S / "overlays" / "production"))


def test_the_optional_parts_are_the_optional_components(tmp_path: Path) -> None:
    """The ServiceMonitors: a value of the chart, a component of the overlay."""
    chart = helm_template("--set", "serviceMonitor.enabled=true")
    overlay = render(production_with(tmp_path, ("servicemonitor",)))
    assert_same_objects(chart, overlay)
    kinds = {(obj["kind"], obj["metadata"]["name"]) for obj in chart}
    assert ("ServiceMonitor", "mazziere") in kinds


def test_the_gateway_autoscaler_is_on_and_off_leaves_the_overlays_fixed_count(
    tmp_path: Path, renders: dict[str, Rendered]
) -> None:
    """On by default, as production lists components/gateway-autoscaler; off, the overlay without it."""
    default = renders["default"]
    (hpa,) = [h for h in default.of_kind("HorizontalPodAutoscaler") if h["metadata"]["name"] == "mazziere-gateway"]
    assert (hpa["spec"]["minReplicas"], hpa["spec"]["maxReplicas"]) == (2, 10)
    assert "replicas" not in default.one("Deployment", "mazziere-gateway")["spec"]
    fixed = Rendered("fixed", helm_template("--set", "gateway.autoscaling.enabled=false"))
    assert_same_objects(fixed.objects, render(production_without(tmp_path, "gateway-autoscaler")))
    assert fixed.one("Deployment", "mazziere-gateway")["spec"]["replicas"] == 2
    assert {h["metadata"]["name"] for h in fixed.of_kind("HorizontalPodAutoscaler")} == {"mazziere", "mazziere-host"}


# -- every render ------------------------------------------------------------------------------------------------


@pytest.fixture(params=RENDERS)
def rendered(request: pytest.FixtureRequest, renders: dict[str, Rendered]) -> Rendered:
    return renders[request.param]


def containers(rendered: Rendered) -> dict[str, dict[str, Any]]:
    """The only container of each Deployment, by the Deployment's name."""
    found = {}
    for deployment in rendered.of_kind("Deployment"):
        (container,) = deployment["spec"]["template"]["spec"]["containers"]
        found[deployment["metadata"]["name"]] = container
    return found


def env_entries(container: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in container.get("env", [])}


def test_every_render_stops_within_its_termination_grace_period(rendered: Rendered) -> None:
    """The chart's preStop, drain and grace against terminationGracePeriodSeconds, as the overlays are checked."""
    test_every_pod_stops_within_its_termination_grace_period(rendered)


def test_the_custom_pre_stop_takes_effect(renders: dict[str, Rendered]) -> None:
    for container in containers(renders["custom"]).values():
        assert container["lifecycle"]["preStop"]["exec"]["command"] == ["sleep", "8"]


def test_every_render_is_valid_for_kubernetes(rendered: Rendered) -> None:
    """kubernetes-validate's schemas, strict, for 1.27 and the latest Kubernetes, as tests/deploy/test_manifests.py
    checks the overlays; custom resources (the ServiceMonitors) have no schema there."""
    validate = pytest.importorskip("kubernetes_validate", reason="pip install kubernetes-validate")
    for version in ("1.27.0", validate.latest_version()):
        for obj in rendered.objects:
            if obj["apiVersion"].startswith("monitoring.coreos.com/"):
                continue
            try:
                validate.validate(obj, version, strict=True)
            except validate.ValidationError as error:
                pytest.fail(f"{rendered.name}: {obj['kind']} {obj['metadata']['name']} ({version}): {error}")


def test_kube_score_finds_nothing_critical(rendered: Rendered, tmp_path: Path) -> None:
    exe = tool("kube-score", "KUBE_SCORE")
    if exe is None:
        pytest.skip("kube-score is not installed (make test builds the pinned one with Go)")
    manifest = tmp_path / f"{rendered.name}.yaml"
    manifest.write_text(yaml.safe_dump_all(rendered.objects))
    done = subprocess.run([exe, "score", str(manifest), "--output-format", "ci"], capture_output=True, text=True)
    findings = done.stdout.splitlines()
    assert any(line.startswith("[OK]") for line in findings), done.stdout + done.stderr
    critical = [line for line in findings if line.startswith("[CRITICAL]")]
    assert not critical, critical


def test_every_render_sets_only_what_the_service_knows_and_accepts(rendered: Rendered) -> None:
    """MAZZIERE_* settings the service accepts (Config.load, as for the overlays), and OTEL_* ones only when
    tracing is on."""
    tracing = rendered.name == "custom"
    for name, container in containers(rendered).items():
        env = rendered.container_env(container)
        unknown = set(env) - KNOWN_VARIABLES - (TRACING_VARIABLES if tracing else frozenset())
        assert not unknown, f"{rendered.name}/{name}: {sorted(unknown)}"
        Config.from_env(env)


def test_the_host_may_run_as_many_replicas_as_its_autoscaler(rendered: Rendered) -> None:
    (host,) = [d for d in rendered.of_kind("Deployment") if d["metadata"]["name"] == "mazziere-host"]
    allowed = int(env_entries(containers(rendered)["mazziere-host"])["MAZZIERE_HOST_REPLICAS"]["value"])
    autoscalers = [h for h in rendered.of_kind("HorizontalPodAutoscaler") if h["metadata"]["name"] == "mazziere-host"]
    most = autoscalers[0]["spec"]["maxReplicas"] if autoscalers else host["spec"]["replicas"]
    assert allowed == most


def test_every_object_goes_to_the_release_namespace(rendered: Rendered) -> None:
    expected = NAMESPACE if rendered.name == "default" else "games"
    for obj in rendered.objects:
        assert obj["metadata"]["namespace"] == expected, (obj["kind"], obj["metadata"]["name"])
    assert not rendered.of_kind("Namespace"), "a release goes into an existing namespace"
    assert not rendered.of_kind("Secret"), "the Secrets are made by hand (deploy/README.md)"


# -- non-default values take effect ------------------------------------------------------------------------------


def test_the_custom_values_take_effect(renders: dict[str, Rendered]) -> None:
    rendered, given = renders["custom"], values("custom")
    found = containers(rendered)
    assert set(found) == set(DEPLOYMENTS)
    image = f"{given['image']['repository']}:{given['image']['tag']}"
    for name, container in found.items():
        assert container["image"] == image, name
        assert container["resources"] == given[DEPLOYMENTS[name]]["resources"], name
    for deployment in rendered.of_kind("Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["imagePullSecrets"] == given["imagePullSecrets"]
        assert pod["topologySpreadConstraints"][0]["whenUnsatisfiable"] == "ScheduleAnyway"

    # Scaling: the engine at a fixed count, the gateway and the host on their autoscalers.
    engine = rendered.one("Deployment", "mazziere")
    assert engine["spec"]["replicas"] == given["engine"]["replicas"] == 4
    autoscalers = {h["metadata"]["name"]: h["spec"] for h in rendered.of_kind("HorizontalPodAutoscaler")}
    assert set(autoscalers) == {"mazziere-gateway", "mazziere-host"}
    for name in autoscalers:
        scaling = given[DEPLOYMENTS[name]]["autoscaling"]
        spec = autoscalers[name]
        assert (spec["minReplicas"], spec["maxReplicas"]) == (scaling["minReplicas"], scaling["maxReplicas"])
        (metric,) = spec["metrics"]
        assert metric["resource"]["target"]["averageUtilization"] == scaling["targetCPUUtilizationPercentage"]
        assert "replicas" not in rendered.one("Deployment", name)["spec"], f"{name}: the autoscaler owns the count"

    # The host's store: the PostgreSQL URL from the Secret named, never a plain value.
    host = env_entries(found["mazziere-host"])
    store = given["host"]["store"]["postgresql"]
    assert host["MAZZIERE_STORE_URL"] == {
        "name": "MAZZIERE_STORE_URL",
        "valueFrom": {"secretKeyRef": {"name": store["secretName"], "key": store["key"]}},
    }
    assert host["MAZZIERE_HOST_REPLICAS"]["value"] == "5"
    assert host["MAZZIERE_PUBLIC_URL"]["value"] == given["host"]["publicUrl"]
    for name in ("mazziere", "mazziere-host"):
        volumes = rendered.one("Deployment", name)["spec"]["template"]["spec"]["volumes"]
        (keys,) = [v["secret"] for v in volumes if "secret" in v]
        assert keys["secretName"] == "games-seal-keys" and keys["items"] == [{"key": "keys", "path": "seal-keys"}]
    assert env_entries(found["mazziere-gateway"])["MAZZIERE_GATEWAY_TIMEOUT_SECONDS"]["value"] == "20"

    # The ConfigMap: the values' settings, under a name of their own that every pod reads.
    (config,) = rendered.of_kind("ConfigMap")
    assert config["data"] == given["config"]
    assert config["metadata"]["name"] != renders["default"].of_kind("ConfigMap")[0]["metadata"]["name"]
    for container in found.values():
        assert container["envFrom"] == [{"configMapRef": {"name": config["metadata"]["name"]}}]


def test_the_custom_values_trace_every_pod_to_the_collector(renders: dict[str, Rendered]) -> None:
    rendered, tracing = renders["custom"], values("custom")["tracing"]
    for name, container in containers(rendered).items():
        env = {k: entry["value"] for k, entry in env_entries(container).items() if k.startswith("OTEL_")}
        assert env == {
            "OTEL_SERVICE_NAME": f"mazziere-{DEPLOYMENTS[name]}",
            "OTEL_TRACES_EXPORTER": "otlp",
            "OTEL_EXPORTER_OTLP_ENDPOINT": tracing["endpoint"],
            "OTEL_EXPORTER_OTLP_PROTOCOL": tracing["protocol"],
            "OTEL_TRACES_SAMPLER": tracing["sampler"],
            "OTEL_TRACES_SAMPLER_ARG": tracing["samplerArg"],
            "OTEL_RESOURCE_ATTRIBUTES": "deployment.environment=staging,service.namespace=mazziere",
        }, name
    # Each pod's NetworkPolicy lets it reach the collector (and DNS), the engine's included, which calls nothing
    # else.
    to_collector = {
        "ports": [{"port": tracing["collector"]["port"], "protocol": "TCP"}],
        "to": tracing["collector"]["to"],
    }
    for policy in rendered.of_kind("NetworkPolicy"):
        egress = policy["spec"]["egress"]
        assert to_collector in egress, policy["metadata"]["name"]
        assert any({p["port"] for p in rule["ports"]} == {53} for rule in egress), policy["metadata"]["name"]
    assert len(rendered.one("NetworkPolicy", "mazziere-engine")["spec"]["egress"]) == 2


def test_the_custom_values_monitor_the_engine_and_the_host(renders: dict[str, Rendered]) -> None:
    rendered, monitor = renders["custom"], values("custom")["serviceMonitor"]
    monitors = {m["metadata"]["name"]: m for m in rendered.of_kind("ServiceMonitor")}
    assert set(monitors) == {"mazziere", "mazziere-host"}
    for name, found in monitors.items():
        assert found["metadata"]["labels"]["release"] == monitor["labels"]["release"]
        assert found["spec"]["endpoints"] == [{"port": "metrics", "path": "/metrics", "interval": monitor["interval"]}]
        service = rendered.one("Service", name)
        assert found["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]
    assert not renders["default"].of_kind("ServiceMonitor")


def test_the_sqlite_values_run_one_host_on_its_claim(renders: dict[str, Rendered]) -> None:
    rendered, given = renders["sqlite"], values("sqlite")
    host = rendered.one("Deployment", "mazziere-host")
    assert host["spec"]["replicas"] == 1 and host["spec"]["strategy"] == {"type": "Recreate"}
    env = env_entries(containers(rendered)["mazziere-host"])
    assert "MAZZIERE_STORE_URL" not in env, "no URL: the SQLite store in the data directory"
    assert env["MAZZIERE_HOST_REPLICAS"]["value"] == "1"
    container = containers(rendered)["mazziere-host"]
    config = Config.from_env(rendered.container_env(container))  # the service's own guard: one host on SQLite
    assert config.host_enabled and config.host_replicas == 1
    (mount,) = [m["mountPath"] for m in container["volumeMounts"] if m["name"] == "data"]
    assert config.store == f"sqlite:///{mount}/tables.db", "the store is on the data volume"
    volumes = {v["name"]: v for v in host["spec"]["template"]["spec"]["volumes"]}
    (claim,) = rendered.of_kind("PersistentVolumeClaim")
    assert volumes["data"] == {"name": "data", "persistentVolumeClaim": {"claimName": claim["metadata"]["name"]}}
    assert claim["spec"]["resources"]["requests"]["storage"] == given["host"]["store"]["sqlite"]["persistence"]["size"]
    assert claim["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep", "uninstall keeps the tables"
    autoscalers = {h["metadata"]["name"]: h["spec"] for h in rendered.of_kind("HorizontalPodAutoscaler")}
    assert set(autoscalers) == {"mazziere"}
    assert (autoscalers["mazziere"]["minReplicas"], autoscalers["mazziere"]["maxReplicas"]) == (2, 4)
    assert not [obj for obj in rendered.objects if obj["metadata"]["name"] == "mazziere-gateway"]
    policy = rendered.one("NetworkPolicy", "mazziere-host")
    assert all(5432 not in {p["port"] for p in rule["ports"]} for rule in policy["spec"]["egress"])


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (["host.store.type=sqlite"], "host.store.type=sqlite runs one host"),
        (
            ["host.store.type=sqlite", "host.autoscaling.enabled=false", "host.replicas=2"],
            "more replicas need PostgreSQL",
        ),
        (["gateway.autoscaling.enabled=true", "gateway.autoscaling.minReplicas=12"], "maxReplicas is below"),
        (["tracing.enabled=true"], "'/tracing/endpoint'"),
        (["host.store.type=mysql"], "'/host/store/type'"),
        (["tracing.protocol=http/protobuf"], "'/tracing/protocol'"),
        (["config.LOG_LEVEL=debug"], "'LOG_LEVEL' does not match pattern '^MAZZIERE_"),
        (["config.MAZZIERE_DRAIN_SECONDS=5"], "'/config/MAZZIERE_DRAIN_SECONDS': got number, want string"),
        (["engine.autoscaling.maxReplicas=0"], "'/engine/autoscaling/maxReplicas'"),
        (["enigne.replicas=2"], "'enigne' not allowed"),
    ],
)
def test_values_the_chart_refuses(settings: list[str], message: str) -> None:
    """A values mistake stops the render with its reason: the schema (values.schema.json) or the templates."""
    args = [arg for setting in settings for arg in ("--set", setting)]
    done = run_helm(*template_args(*args))
    assert done.returncode != 0, f"{settings} rendered"
    assert message in done.stderr, done.stderr
