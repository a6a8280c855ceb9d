#!/usr/bin/env python3
"""Benchmark for issue 12 section 6: `ward import` of one large FHIR bundle, peak memory and time.

Writes a synthetic Synthea-like bundle of about --size-mb megabytes (patients, and for each
encounters, conditions, observations, some blood-pressure panels, medication requests, claims and
explanations of benefit; the patients' entries interleaved and each Patient written AFTER its
first entries, so references point forward), then runs the real `ward import` on it in a fresh
home and prints the child's peak RSS (from wait4's rusage, as /usr/bin/time -v reports it) and
the seconds per 100 MB. The bundle is written to a temporary directory and removed afterwards
(never committed). Not run by `swift test`.

Run: swift build -c release --product ward
     python3 Benchmarks/Import/import_benchmark.py [--ward .build/release/ward] [--size-mb 300]
            [--patients 20] [--runs 1] [--keep DIR | --bundle FILE]
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid

LOINC = [
    ("8302-2", "Body Height", "cm", 150, 190),
    ("29463-7", "Body Weight", "kg", 50, 110),
    ("8867-4", "Heart rate", "/min", 55, 110),
    ("9279-1", "Respiratory rate", "/min", 12, 20),
    ("2339-0", "Glucose", "mg/dL", 70, 140),
    ("2093-3", "Total Cholesterol", "mg/dL", 150, 260),
    ("718-7", "Hemoglobin [Mass/volume] in Blood", "g/dL", 11, 17),
]
CONDITIONS = [("44054006", "Diabetes"), ("38341003", "Hypertension"), ("195662009", "Acute viral pharyngitis")]
DRUGS = [("314076", "lisinopril 10 MG Oral Tablet"), ("860975", "24 HR Metformin hydrochloride 500 MG")]


def when(rng):
    return "%04d-%02d-%02dT%02d:%02d:%02d-05:00" % (
        rng.randint(1960, 2024), rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23), rng.randint(0, 59),
        rng.randint(0, 59))


def patient(pid, n, rng):
    return {"fullUrl": "urn:uuid:" + pid, "resource": {
        "resourceType": "Patient", "id": pid,
        "meta": {"profile": ["http://hl7.org/fhir/us/core/StructureDefinition/us-core-patient"]},
        "text": {"status": "generated", "div": "<div xmlns=\"http://www.w3.org/1999/xhtml\">Generated</div>"},
        "extension": [{"url": "http://hl7.org/fhir/StructureDefinition/patient-mothersMaidenName",
                       "valueString": "Maiden%d" % n}],
        "identifier": [
            {"system": "https://github.com/synthetichealth/synthea", "value": pid},
            {"type": {"coding": [{"system": "http://terminology.hl7.org/CodeSystem/v2-0203", "code": "MR",
                                  "display": "Medical Record Number"}], "text": "Medical Record Number"},
             "system": "http://hospital.smarthealthit.org", "value": "B%07d" % n}],
        "name": [{"use": "official", "family": "Family%d" % n, "given": ["Given%d" % n], "prefix": ["Ms."]}],
        "telecom": [{"system": "phone", "value": "555-%03d-%04d" % (n % 1000, n), "use": "home"}],
        "gender": "female" if n % 2 else "male", "birthDate": "19%02d-0%d-1%d" % (n % 100, n % 9 + 1, n % 10),
        "address": [{"line": ["%d Main St" % n], "city": "Boston", "state": "MA", "postalCode": "02108"}]}}


def entries(pid, rng):
    """One clinical entry for `pid`, Synthea's mix: mostly observations and billing."""
    ref = {"reference": "urn:uuid:" + pid}
    kind = rng.random()
    rid = str(uuid.UUID(int=rng.getrandbits(128)))
    if kind < 0.55:
        code, display, unit, low, high = rng.choice(LOINC)
        resource = {"resourceType": "Observation", "id": rid, "status": "final",
                    "category": [{"coding": [{"system": "http://terminology.hl7.org/CodeSystem/observation-category",
                                              "code": "vital-signs" if kind < 0.3 else "laboratory"}]}],
                    "code": {"coding": [{"system": "http://loinc.org", "code": code, "display": display}],
                             "text": display},
                    "subject": ref, "encounter": {"reference": "urn:uuid:" + rid},
                    "effectiveDateTime": when(rng), "issued": "2020-01-01T00:00:00.000-05:00",
                    "valueQuantity": {"value": round(rng.uniform(low, high), 1), "unit": unit,
                                      "system": "http://unitsofmeasure.org", "code": unit}}
    elif kind < 0.62:
        resource = {"resourceType": "Observation", "id": rid, "status": "final",
                    "category": [{"coding": [{"code": "vital-signs"}]}],
                    "code": {"coding": [{"system": "http://loinc.org", "code": "85354-9",
                                         "display": "Blood pressure panel"}]},
                    "subject": ref, "effectiveDateTime": when(rng),
                    "component": [
                        {"code": {"coding": [{"system": "http://loinc.org", "code": "8480-6", "display": "Systolic"}]},
                         "valueQuantity": {"value": rng.randint(100, 150), "unit": "mm[Hg]"}},
                        {"code": {"coding": [{"system": "http://loinc.org", "code": "8462-4", "display": "Diastolic"}]},
                         "valueQuantity": {"value": rng.randint(60, 95), "unit": "mm[Hg]"}}]}
    elif kind < 0.72:
        start = when(rng)
        resource = {"resourceType": "Encounter", "id": rid, "status": "finished",
                    "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB"},
                    "type": [{"coding": [{"system": "http://snomed.info/sct", "code": "185349003",
                                          "display": "Encounter for check up"}], "text": "Encounter for check up"}],
                    "subject": ref, "period": {"start": start, "end": start}}
    elif kind < 0.76:
        code, display = rng.choice(CONDITIONS)
        resource = {"resourceType": "Condition", "id": rid,
                    "clinicalStatus": {"coding": [{"code": "active"}]},
                    "code": {"coding": [{"system": "http://snomed.info/sct", "code": code, "display": display}],
                             "text": display},
                    "subject": ref, "onsetDateTime": when(rng), "recordedDate": when(rng)}
    elif kind < 0.80:
        code, display = rng.choice(DRUGS)
        resource = {"resourceType": "MedicationRequest", "id": rid, "status": "active", "intent": "order",
                    "medicationCodeableConcept": {"coding": [{"system": "http://www.nlm.nih.gov/research/umls/rxnorm",
                                                              "code": code, "display": display}], "text": display},
                    "subject": ref, "authoredOn": when(rng), "dosageInstruction": [{"text": "once daily"}]}
    else:
        # Billing: the bulk of a Synthea file by bytes; Ward counts and skips it.
        resource = {"resourceType": "ExplanationOfBenefit" if kind < 0.9 else "Claim", "id": rid,
                    "status": "active", "patient": ref, "created": when(rng),
                    "item": [{"sequence": i, "productOrService": {"coding": [{"system": "http://snomed.info/sct",
                                                                              "code": "185349003"}]},
                              "net": {"value": round(rng.uniform(10, 500), 2), "currency": "USD"}}
                             for i in range(1, 6)]}
    return {"fullUrl": "urn:uuid:" + rid, "resource": resource,
            "request": {"method": "POST", "url": resource["resourceType"]}}


def write_bundle(path, size_mb, patients, seed=12):
    rng = random.Random(seed)
    target = size_mb * 1_000_000
    ids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(patients)]
    written_patient = [False] * patients
    with open(path, "w") as out:
        out.write('{"resourceType": "Bundle", "type": "transaction", "entry": [\n')
        first = True
        count = 0
        while out.tell() < target:
            n = rng.randrange(patients)
            entry = entries(ids[n], rng)
            out.write(("" if first else ",\n") + json.dumps(entry, separators=(",", ":")))
            first = False
            count += 1
            # Each Patient comes after some of its entries: references that point forward.
            if not written_patient[n] and rng.random() < 0.001:
                out.write(",\n" + json.dumps(patient(ids[n], n, rng), separators=(",", ":")))
                written_patient[n] = True
        for n in range(patients):
            if not written_patient[n]:
                out.write(",\n" + json.dumps(patient(ids[n], n, rng), separators=(",", ":")))
        out.write("\n]}\n")
    return count


def run_import(ward, bundle, home, site=None):
    # No site file: the built-in policy (a WARD_SITE that names no file is refused), the home's
    # SQLite records. A site file naming a PostgreSQL database imports there.
    env = dict(os.environ, WARD_HOME=home, LANG="C.UTF-8")
    env.pop("WARD_SITE", None)
    if site:
        env["WARD_SITE"] = site
    start = time.monotonic()
    process = subprocess.Popen([ward, "import", bundle], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - start
    stderr = process.stderr.read().decode(errors="replace")
    process.returncode = os.waitstatus_to_exitcode(status)
    # ru_maxrss: KiB on Linux. CPU seconds too: on a shared machine they vary less than the wall clock.
    return process.returncode, seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, stderr


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ward", default=os.path.join(root, ".build/release/ward"))
    parser.add_argument("--size-mb", type=int, default=300)
    parser.add_argument("--patients", type=int, default=20)
    parser.add_argument("--runs", type=int, default=1, help="imports into fresh homes; the median is printed")
    parser.add_argument("--keep", help="write the bundle in this directory and keep it")
    parser.add_argument("--bundle", help="import this bundle instead of writing one")
    parser.add_argument("--site", help="a site file whose [records] are on PostgreSQL: import there (each run "
                        "into the same database; give it a fresh, migrated one and --runs 1)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ward-import-bench-")
    try:
        if args.bundle:
            bundle = args.bundle
        else:
            bundle = os.path.join(args.keep or work, "big-bundle.json")
            started = time.monotonic()
            count = write_bundle(bundle, args.size_mb, args.patients)
            print("bundle: %d entries, %d patients (written in %.0f s)" % (
                count + args.patients, args.patients, time.monotonic() - started))
        size = os.path.getsize(bundle)
        print("bundle: %s, %.1f MB" % (os.path.basename(bundle), size / 1e6))
        results = []
        for run in range(args.runs):
            home = os.path.join(work, "home%d" % run)
            os.mkdir(home, 0o700)
            status, seconds, cpu, maxrss, stderr = run_import(args.ward, bundle, home, args.site)
            if status != 0:
                sys.exit("ward import exited %d:\n%s" % (status, stderr[-2000:]))
            results.append((seconds, maxrss, cpu))
            print("run %d: %.1f s (%.1f s CPU), peak RSS %.0f MB, %.2f s per 100 MB; %s" % (
                run + 1, seconds, cpu, maxrss / 1024, seconds / (size / 1e8), stderr.strip().splitlines()[-1]))
            shutil.rmtree(home)
        results.sort()
        seconds, _, _ = results[len(results) // 2]
        cpu = sorted(r[2] for r in results)[len(results) // 2]
        peak = max(r[1] for r in results)
        print("median %.1f s = %.2f s per 100 MB (CPU %.2f s per 100 MB); peak RSS (max over runs) %.0f MB "
              "for a %.0f MB bundle; load average %s" % (
                  seconds, seconds / (size / 1e8), cpu / (size / 1e8), peak / 1024, size / 1e6,
                  " ".join("%.1f" % x for x in os.getloadavg())))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
