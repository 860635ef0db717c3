"""The Helm chart (deploy/helm/mazziere), held to the Kustomize production overlay it stands for.

``helm template`` of a release named mazziere with the production overlay's image settings (your registry, pulled
Always) must render the objects ``kustomize build`` makes of deploy/k8s/overlays/production, object by object, bar
what legitimately differs: the overlay's Namespace (a Helm release is installed into a namespace that exists
already), the ``app.kubernetes.io/managed-by`` label (kustomize's labels say ``kustomize``; ``helm install`` sets
``Helm`` itself) and the release's own labels (instance, chart, version), which the chart's selectors add so that
releases share a namespace. The chart's optional part (the ServiceMonitors) must equal the overlay with that
component listed. Two releases render into one namespace without a clash; the chart's defaults and non-default
values (deploy/helm/mazziere/ci/*-values.yaml) lint, render objects kubernetes-validate finds valid and kube-score
finds nothing critical in, and do what they say. ``make test`` builds the pinned helm (with the Kubernetes version
of its client libraries, so ``helm template`` needs no ``--kube-version``), kustomize and kube-score into
``.venv/bin`` (``HELM=...`` points at another helm).
"""

from __future__ import annotations

import base64
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
"""The oldest Kubernetes the chart allows (Chart.yaml's kubeVersion), which ``helm lint`` checks it against."""
HELM_KUBE_VERSION = "v1.37.0"
"""The Kubernetes the Makefile's helm assumes without a cluster (its client-go's, set through ldflags)."""
MANAGED_BY = "app.kubernetes.io/managed-by"
RELEASE_LABELS = frozenset({"app.kubernetes.io/instance", "app.kubernetes.io/version", "helm.sh/chart"})
"""The labels a Helm release adds to the Kustomize manifests' (selectors included: instance)."""
PRODUCTION_IMAGE = ("--set", "image.repository=registry.example.com/mazziere", "--set", "image.pullPolicy=Always")
"""The production overlay's image settings (its ``images:`` and pull policy patch) as chart values."""
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
    """``helm template`` of a release named mazziere, with no ``--kube-version``: the helm knows its own."""
    return ["template", "mazziere", str(CHART), "--namespace", namespace, *args]


def helm_template(*args: str, namespace: str = NAMESPACE, release: str = "mazziere") -> tuple[dict[str, Any], ...]:
    """``helm template`` of the chart with these arguments, parsed."""
    done = run_helm("template", release, *template_args(*args, namespace=namespace)[2:])
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


def without_release_labels(value: Any) -> Any:
    """A rendered object less the release's labels (RELEASE_LABELS), wherever they are: its labels, its pods', its
    selectors'."""
    if isinstance(value, dict):
        return {key: without_release_labels(item) for key, item in value.items() if key not in RELEASE_LABELS}
    if isinstance(value, list):
        return [without_release_labels(item) for item in value]
    return value


def assert_same_objects(chart: tuple[dict[str, Any], ...], overlay: tuple[dict[str, Any], ...]) -> None:
    ours = keyed(tuple(without_release_labels(obj) for obj in chart), "the chart")
    theirs = keyed(as_helm_installs(overlay), "the overlay")
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
    for versions in ([], ["--kube-version", KUBE_VERSION]):
        done = run_helm("lint", "--strict", str(CHART), *versions, *args)
        assert done.returncode == 0, done.stdout + done.stderr
        assert "0 chart(s) failed" in done.stdout, done.stdout
        assert "[INFO]" not in done.stdout, done.stdout  # e.g. "icon is recommended"


def test_helm_knows_its_kubernetes_version(tmp_path: Path) -> None:
    """The Makefile's helm assumes its client libraries' Kubernetes (ldflags, as helm's own release build), not
    the 1.20 a plain ``go install`` leaves, which the chart's kubeVersion refuses: ``helm template`` needs no flag."""
    probe = tmp_path / "probe"
    (probe / "templates").mkdir(parents=True)
    (probe / "Chart.yaml").write_text("apiVersion: v2\nname: probe\nversion: 0.1.0\n")
    (probe / "templates" / "version.yaml").write_text("# {{ .Capabilities.KubeVersion.Version }}\n")
    done = run_helm("template", "probe", str(probe))
    assert done.returncode == 0, done.stderr
    assert f"# {HELM_KUBE_VERSION}" in done.stdout, done.stdout
    bare = run_helm("template", "mazziere", str(CHART))
    assert bare.returncode == 0, bare.stderr


def test_the_chart_icon_is_the_web_tables() -> None:
    icon = yaml.safe_load((CHART / "Chart.yaml").read_text())["icon"]
    prefix = "data:image/svg+xml;base64,"
    assert icon.startswith(prefix)
    web_icon = DEPLOY.parent / "clients" / "web" / "src" / "favicon.svg"
    assert base64.b64decode(icon.removeprefix(prefix)) == web_icon.read_bytes(), "re-encode the web table's icon"


def test_the_production_render_is_the_production_overlay() -> None:
    assert_same_objects(helm_template(*PRODUCTION_IMAGE), render(K8S / "overlays" / "production"))


def test_the_default_image_is_the_one_make_image_builds_pulled_if_not_present(renders: dict[str, Rendered]) -> None:
    """Defaults as `helm create` has them: the image by its plain name at the chart's appVersion (as the Kustomize
    base names it, and `kind load` or a local registry mirror finds it), pulled only where a node lacks it."""
    app_version = yaml.safe_load((CHART / "Chart.yaml").read_text())["appVersion"]
    for container in containers(renders["default"]).values():
        assert container["image"] == f"mazziere:{app_version}"
        assert container["imagePullPolicy"] == "IfNotPresent"


def test_the_optional_parts_are_the_optional_components(tmp_path: Path) -> None:
    """The ServiceMonitors: a value of the chart, a component of the overlay."""
    chart = helm_template(*PRODUCTION_IMAGE, "--set", "serviceMonitor.enabled=true")
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
    fixed = Rendered("fixed", helm_template(*PRODUCTION_IMAGE, "--set", "gateway.autoscaling.enabled=false"))
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
    """kube-score's default checks, but its pull policy check where a render pulls IfNotPresent (the default, as
    `helm create` has it, for an image tagged with a release's version that no one pushes again); a render that
    pulls Always (the custom values) is held to it."""
    exe = tool("kube-score", "KUBE_SCORE")
    if exe is None:
        pytest.skip("kube-score is not installed (make test builds the pinned one with Go)")
    manifest = tmp_path / f"{rendered.name}.yaml"
    manifest.write_text(yaml.safe_dump_all(rendered.objects))
    command = [exe, "score", str(manifest), "--output-format", "ci"]
    policies = {container["imagePullPolicy"] for container in containers(rendered).values()}
    if policies == {"IfNotPresent"}:
        assert not any(c["image"].endswith(":latest") for c in containers(rendered).values())
        command += ["--ignore-test", "container-image-pull-policy"]
    done = subprocess.run(command, capture_output=True, text=True)
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


def test_the_standard_values_take_effect(renders: dict[str, Rendered]) -> None:
    """What `helm create` gives every chart: a service account, pod annotations and labels, placement, an
    Ingress."""
    rendered, given = renders["custom"], values("custom")
    (account,) = rendered.of_kind("ServiceAccount")
    assert account["metadata"]["name"] == given["serviceAccount"]["name"]
    assert account["metadata"]["annotations"] == given["serviceAccount"]["annotations"]
    assert account["automountServiceAccountToken"] is False
    for deployment in rendered.of_kind("Deployment"):
        template = deployment["spec"]["template"]
        pod = template["spec"]
        assert pod["serviceAccountName"] == given["serviceAccount"]["name"]
        assert pod["automountServiceAccountToken"] is False
        assert pod["nodeSelector"] == given["nodeSelector"]
        assert pod["tolerations"] == given["tolerations"]
        assert pod["affinity"] == given["affinity"]
        assert template["metadata"]["annotations"].items() >= given["podAnnotations"].items()
        assert template["metadata"]["annotations"]["prometheus.io/scrape"] == "true", "the scrape annotations stay"
        assert template["metadata"]["labels"].items() >= given["podLabels"].items()
    (ingress,) = rendered.of_kind("Ingress")
    spec = ingress["spec"]
    assert spec["ingressClassName"] == given["ingress"]["className"]
    assert ingress["metadata"]["annotations"] == given["ingress"]["annotations"]
    assert spec["tls"] == given["ingress"]["tls"]
    (rule,) = spec["rules"]
    assert rule["host"] == given["ingress"]["hosts"][0]["host"]
    (path,) = rule["http"]["paths"]
    assert path["backend"] == {"service": {"name": "mazziere-host", "port": {"name": "http"}}}
    assert "http" in {port["name"] for port in rendered.one("Service", "mazziere-host")["spec"]["ports"]}
    defaults = renders["default"]
    assert not defaults.of_kind("Ingress")
    for deployment in defaults.of_kind("Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        assert pod["serviceAccountName"] == "mazziere"
        assert not {"nodeSelector", "tolerations", "affinity"} & set(pod)


def test_without_its_own_service_account_the_pods_run_as_the_one_named() -> None:
    rendered = Rendered("borrowed", helm_template("--set", "serviceAccount.create=false"))
    assert not rendered.of_kind("ServiceAccount")
    assert {d["spec"]["template"]["spec"]["serviceAccountName"] for d in rendered.of_kind("Deployment")} == {"default"}
    named = helm_template("--set", "serviceAccount.create=false", "--set", "serviceAccount.name=games")
    assert {d["spec"]["template"]["spec"]["serviceAccountName"] for d in named if d["kind"] == "Deployment"} == {
        "games"
    }


def selectors(obj: dict[str, Any]) -> list[tuple[dict[str, str], bool]]:
    """The label selectors of an object that pick the chart's pods (match labels only, as the chart writes them),
    each with whether it must pick some (a NetworkPolicy's peer need not: the gateway's, with no gateway)."""
    spec = obj.get("spec", {})
    found: list[tuple[dict[str, str], bool]] = []
    if obj["kind"] == "Service":
        found.append((spec["selector"], True))
    elif obj["kind"] in {"Deployment", "PodDisruptionBudget"}:
        found.append((spec["selector"]["matchLabels"], True))
    elif obj["kind"] == "NetworkPolicy":
        found.append((spec["podSelector"]["matchLabels"], True))
        for rule in spec.get("ingress", []) + spec.get("egress", []):
            for peer in rule.get("from", []) + rule.get("to", []):
                if "podSelector" in peer and "app.kubernetes.io/component" in peer["podSelector"]["matchLabels"]:
                    found.append((peer["podSelector"]["matchLabels"], False))
    if obj["kind"] == "Deployment":
        for constraint in spec["template"]["spec"]["topologySpreadConstraints"]:
            found.append((constraint["labelSelector"]["matchLabels"], True))
    return found


def pods_labels(objects: tuple[dict[str, Any], ...]) -> list[dict[str, str]]:
    return [d["spec"]["template"]["metadata"]["labels"] for d in objects if d["kind"] == "Deployment"]


def references(objects: tuple[dict[str, Any], ...]) -> set[str]:
    """The names the pods call or read other objects by: ConfigMap, service account, engine target, claims."""
    found = set()
    for deployment in (obj for obj in objects if obj["kind"] == "Deployment"):
        pod = deployment["spec"]["template"]["spec"]
        found.add(f"ServiceAccount/{pod['serviceAccountName']}")
        for container in pod["containers"]:
            found.update(f"ConfigMap/{ref['configMapRef']['name']}" for ref in container["envFrom"])
            targets = [e.get("value", "") for e in container.get("env", []) if e["name"] == "MAZZIERE_ENGINE_TARGET"]
            targets += [arg for arg in container["args"] if arg.startswith("dns:///")]
            found.update(f"Service/{target.removeprefix('dns:///').split(':')[0]}" for target in targets)
        found.update(
            f"PersistentVolumeClaim/{volume['persistentVolumeClaim']['claimName']}"
            for volume in pod["volumes"]
            if "persistentVolumeClaim" in volume
        )
    for autoscaler in (obj for obj in objects if obj["kind"] == "HorizontalPodAutoscaler"):
        found.add(f"Deployment/{autoscaler['spec']['scaleTargetRef']['name']}")
    return found


@pytest.mark.parametrize("settings", [[], ["--values", str(VALUES_FILES["sqlite"])]], ids=["default", "sqlite"])
def test_two_releases_share_a_namespace(settings: list[str]) -> None:
    """Releases mazziere and cards in one namespace: no object of the one has a name of the other's, no selector
    of the one picks the other's pods, and every name a pod calls or reads is its own release's."""
    releases = {
        release: helm_template(*settings, namespace="games", release=release) for release in ("mazziere", "cards")
    }
    names = {
        release: {(obj["kind"], obj["metadata"]["name"]) for obj in objects} for release, objects in releases.items()
    }
    assert not names["mazziere"] & names["cards"], sorted(names["mazziere"] & names["cards"])
    assert ("Deployment", "cards-mazziere-host") in names["cards"]
    assert ("Deployment", "mazziere-host") in names["mazziere"]
    for release, objects in releases.items():
        (other,) = set(releases) - {release}
        own_pods, other_pods = pods_labels(objects), pods_labels(releases[other])
        for obj in objects:
            for selector, picks in selectors(obj):
                assert selector["app.kubernetes.io/instance"] == release, (release, obj["kind"], selector)
                if picks:
                    assert any(selector.items() <= pod.items() for pod in own_pods), (release, obj["kind"], selector)
                assert not any(selector.items() <= pod.items() for pod in other_pods), (release, obj["kind"], selector)
        own = {f"{kind}/{name}" for kind, name in names[release]}
        assert references(objects) <= own, (release, sorted(references(objects) - own))


def test_name_overrides_name_every_object() -> None:
    named = helm_template("--set", "fullnameOverride=cards", "--values", str(VALUES_FILES["custom"]))
    assert {obj["metadata"]["name"] for obj in named if obj["kind"] == "Deployment"} == {
        "cards",
        "cards-gateway",
        "cards-host",
    }
    for obj in named:
        name = obj["metadata"]["name"]
        if obj["kind"] != "ServiceAccount":  # named by serviceAccount.name in the custom values
            assert name == "cards" or name.startswith("cards-"), (obj["kind"], name)
    renamed = helm_template("--set", "nameOverride=cartes", release="games")
    for obj in renamed:
        assert obj["metadata"]["name"].startswith("games-cartes"), (obj["kind"], obj["metadata"]["name"])
        if obj["kind"] == "Deployment":
            assert obj["spec"]["selector"]["matchLabels"]["app.kubernetes.io/name"] == "cartes"


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
        (["ingress.enabled=true", "host.enabled=false"], "ingress.enabled routes to the host"),
        (["fullnameOverride=Cards"], "'/fullnameOverride'"),
    ],
)
def test_values_the_chart_refuses(settings: list[str], message: str) -> None:
    """A values mistake stops the render with its reason: the schema (values.schema.json) or the templates."""
    args = [arg for setting in settings for arg in ("--set", setting)]
    done = run_helm(*template_args(*args))
    assert done.returncode != 0, f"{settings} rendered"
    assert message in done.stderr, done.stderr
