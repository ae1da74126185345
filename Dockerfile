# The dashboard in a container: the wheel built from this checkout, installed with its "app" extra (the Streamlit
# versions the app is tested with) and served by the console command, as a user without root rights.
#   docker build -t fairness-dashboard .
#   docker run --rm -p 127.0.0.1:8501:8501 fairness-dashboard          # then open http://127.0.0.1:8501
# Data on the host for the Data page's "Data on this machine" (read-only, under /data in the container):
#   docker run --rm -p 127.0.0.1:8501:8501 -v /srv/logs:/data:ro fairness-dashboard \
#       fairness-core app --address 0.0.0.0 --port 8501 --data-root /data
# The image holds the installed wheel, not the checkout: the same files `pip install` of the wheel gives, with the
# server's settings (.streamlit/config.toml) inside the package. Why the wheel rather than `pip install -r
# requirements.txt`: the image then holds what users install from the wheel, without the checkout's tests and tools.
# tests/browser/test_installed_app_browser.py runs this file's RUN commands that build and install the wheel, its
# CMD and its HEALTHCHECK (read from here) in a fresh virtual environment; the image itself is not built there.

FROM python:3.11-slim AS build
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir --disable-pip-version-check build "setuptools>=77"
RUN python -m build --wheel --no-isolation --outdir dist .

FROM python:3.11-slim
RUN useradd --create-home --uid 10001 reviewer
WORKDIR /src
COPY --from=build /src/dist dist
RUN pip install --no-cache-dir --disable-pip-version-check "$(ls dist/fairness_core-*.whl)[app]"
USER reviewer
WORKDIR /home/reviewer
EXPOSE 8501
# Inside a container the server listens on every interface of the container (0.0.0.0): on its 127.0.0.1 no
# published port could reach it. Who can reach it is then decided by `docker run -p`: 127.0.0.1:8501:8501 keeps
# it to the host, as the app's own default does.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health', timeout=4)"
CMD ["fairness-core", "app", "--address", "0.0.0.0", "--port", "8501"]
