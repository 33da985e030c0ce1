"""Parses a Prometheus (0.0.4) or OpenMetrics exposition read from stdin with the Prometheus Python client's parsers
(Debian's python3-prometheus-client) and prints its families and samples as JSON, for varve-it's metrics tests.
Usage: prometheus_parse.py text|openmetrics"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as openmetrics_families
from prometheus_client.parser import text_string_to_metric_families as text_families

text = sys.stdin.read()
parse = openmetrics_families if sys.argv[1] == "openmetrics" else text_families
families = []
samples = []
for family in parse(text):
    families.append({"name": family.name, "type": family.type})
    for s in family.samples:
        samples.append({"name": s.name, "labels": s.labels, "value": s.value})
json.dump({"families": families, "samples": samples}, sys.stdout)
