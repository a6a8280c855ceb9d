import Testing

@testable import WardRecords

/// The sign-on banner says what the home holds, and calls it demo data only when it all is.
@Suite struct HomeContentsTests {
    @Test func patients_countsInTheSingularAndThePlural() {
        #expect(HomeContents.patients(0) == "0 patients")
        #expect(HomeContents.patients(1) == "1 patient")
        #expect(HomeContents.patients(2) == "2 patients")
    }

    @Test func aDemoHome_isCalledDemoData() {
        #expect(
            HomeContents.banner(patients: 1000, demo: DemoMarker(seed: 7, patients: 1000))
                == "Demo data: 1000 synthetic patients (seed 7). None of them is a real person."
        )
        #expect(
            HomeContents.banner(patients: 1, demo: DemoMarker(seed: 1, patients: 1))
                == "Demo data: 1 synthetic patient (seed 1). None of them is a real person."
        )
    }

    @Test func aDemoHomeWithImportedPatients_isNotCalledDemoData() {
        let banner = HomeContents.banner(patients: 1012, demo: DemoMarker(seed: 1, patients: 1000))
        #expect(banner == "This Ward home holds 1012 patients: 1000 synthetic (seed 1), the other 12 imported.")
    }

    @Test func anImportedHome_countsItsPatients_andAnEmptyOneSaysNothing() {
        #expect(HomeContents.banner(patients: 1, demo: nil) == "This Ward home holds 1 patient.")
        #expect(HomeContents.banner(patients: 0, demo: nil) == nil)
    }
}

/// An estimated count says so, and never calls the home demo data: imported patients may hide
/// in the rounding.
@Suite struct EstimatedHomeContentsTests {
    @Test func anEstimate_saysAbout_andNamesTheDemoPatientsWithoutCallingTheHomeDemoData() {
        #expect(HomeContents.banner(.about(1_000_000), demo: nil) == "This Ward home holds about 1000000 patients.")
        #expect(
            HomeContents.banner(.about(1_000_000), demo: DemoMarker(seed: 7, patients: 1_000_000))
                == "This Ward home holds about 1000000 patients, 1000000 of them loaded as synthetic demo data (seed 7)."
        )
        #expect(HomeContents.banner(.exactly(2), demo: nil) == "This Ward home holds 2 patients.")
    }
}
