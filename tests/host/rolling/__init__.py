"""The parts of the rolling-deploy tests (tests/host/test_rolling_deploy.py): server processes restarted in place,
people playing, watchers, and the checks of what each saw.

They watch through the Python client (clients/python, ``mazziere_client``) as its distribution builds it: importing
this package puts that build on ``sys.path`` first (:mod:`.client`).
"""

from tests.host.rolling.client import put_on_path

put_on_path()
