import subprocess

import numpy as np
import pandas as pd
import pytest

import cosched


def test_the_sample_reads_as_the_cli_reads_it(sample):
    assert sample.format == "swf"
    assert sample.capacity == 128
    assert len(sample) + sample.invalid == 4961
    df = cosched.to_dataframe(sample)
    assert list(df.columns)[:5] == ["job_id", "submit_time", "size", "run_time", "requested_time"]
    assert df["job_id"].is_unique and (df["size"] > 0).all()


def test_a_dataframe_round_trips(sample):
    df = cosched.to_dataframe(sample)
    back = cosched.from_dataframe(df, capacity=128, name="again")
    pd.testing.assert_frame_equal(cosched.to_dataframe(back), df)
    assert back.invalid == 0 and back.name == "again"


def test_invalid_rows_are_skipped_and_counted():
    df = pd.DataFrame({
        "job_id": [1, 2, 3], "submit_time": [0, 5, 9], "requested_number_of_processors": [4, 0, 2],
        "run_time": [10, 10, -1], "requested_time": [20, 20, 20],
    })
    w = cosched.from_dataframe(df, capacity=8)
    assert (len(w), w.invalid) == (1, 2)


def test_missing_columns_and_values_are_named():
    with pytest.raises(ValueError, match="requested_time"):
        cosched.from_dataframe(pd.DataFrame({"job_id": [1], "submit_time": [0],
                                             "size": [1], "run_time": [1]}))
    with pytest.raises(ValueError, match="missing"):
        cosched.from_dataframe(pd.DataFrame({"job_id": [1], "submit_time": [np.nan], "size": [1],
                                             "run_time": [1], "requested_time": [1]}))


def test_a_missing_file_is_an_os_error(tmp_path):
    with pytest.raises(OSError, match="nope.swf"):
        cosched.read_trace(tmp_path / "nope.swf")


def test_lublin_is_the_clis_generator(cosched_bin, tmp_path):
    swf = tmp_path / "l.swf"
    with open(swf, "wb") as out:
        subprocess.run([cosched_bin, "generate", "lublin", "--jobs", "3000", "--capacity", "256",
                        "--seed", "7", "--load", "0.8"], check=True, stdout=out)
    ours = cosched.to_dataframe(cosched.generate_lublin(3000, 256, seed=7, load=0.8))
    theirs = cosched.to_dataframe(cosched.read_trace(swf))
    pd.testing.assert_frame_equal(ours, theirs)


def test_lublin_is_deterministic_and_checks_its_parameters():
    a = cosched.to_dataframe(cosched.generate_lublin(500, 64, seed=3))
    b = cosched.to_dataframe(cosched.generate_lublin(500, 64, seed=3))
    pd.testing.assert_frame_equal(a, b)
    with pytest.raises(ValueError, match="stream"):
        cosched.generate_lublin(10, 64, stream="weekly")
    with pytest.raises(ValueError):
        cosched.generate_lublin(10, 0)
