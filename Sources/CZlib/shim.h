// zlib, for reading bulk-data exports written as *.ndjson.gz (FHIR $export servers compress).
#include <zlib.h>
