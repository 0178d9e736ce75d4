import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import cosched
import cosched.gym  # noqa: F401  (registers the environment)
from cosched.gym import BatchSchedulingEnv
from pure_python_env import PurePythonEnv


def test_the_checker_passes():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make("cosched/BatchScheduling-v0", episode_jobs=64).unwrapped
    check_env(env, skip_render_check=True)


def run_episode(env, seed, policy):
    obs, info = env.reset(seed=seed)
    trace, total, done = [obs], 0.0, False
    while not done:
        obs, reward, done, truncated, info = env.step(policy(obs, info))
        trace.append(obs)
        total += reward
    return trace, total, info


def random_pick(rng):
    return lambda obs, info: int(rng.choice(np.flatnonzero(info["action_mask"])))


def test_an_episode_is_deterministic_per_seed():
    env = BatchSchedulingEnv(episode_jobs=128, backfill=True)
    a = run_episode(env, 11, random_pick(np.random.default_rng(0)))
    b = run_episode(env, 11, random_pick(np.random.default_rng(0)))
    assert a[1] == b[1] and all((x == y).all() for x, y in zip(a[0], b[0]))
    assert a[2]["completed"] == 128 and a[1] <= -1.0


def check_against_pure_python(workload, capacity, episode_jobs, queue_size, seeds, agent):
    """The same design written in plain Python, its observation built afresh at every step:
    the same observations (the cosched one written incrementally), masks and reward for the
    same picks, decision by decision. Returns the decisions compared."""
    env = BatchSchedulingEnv(workload, capacity=capacity, episode_jobs=episode_jobs,
                             queue_size=queue_size)
    df = cosched.to_dataframe(workload).sort_values(["submit_time", "job_id"])
    jobs = list(df[df["size"] <= capacity].itertuples(index=False, name=None))
    ref = PurePythonEnv(jobs, capacity, queue_size=queue_size)
    rng = np.random.default_rng(agent)
    decisions = 0
    for seed in seeds:
        obs, info = env.reset(seed=seed)
        ref_obs = ref.reset(info["first_job"], episode_jobs)
        done = False
        while not done:
            np.testing.assert_allclose(obs, ref_obs, rtol=0, atol=1e-6)
            visible = min(len(ref.queue), queue_size)
            assert (info["action_mask"] == (np.arange(queue_size) < visible)).all()
            # Now and then a pick past the visible jobs (the last visible one).
            action = int(rng.integers(visible + 2))
            obs, reward, done, _, info = env.step(action)
            ref_obs, ref_reward, ref_done = ref.step(min(action, visible - 1))
            assert done == ref_done
            decisions += 1
        assert reward == pytest.approx(ref_reward, rel=1e-12)
    return decisions


def test_steps_match_a_pure_python_environment(sample):
    assert check_against_pure_python(sample, 128, 200, 16, (1, 2, 3), 0) > 500


def test_steps_match_a_pure_python_environment_on_a_generated_trace():
    lublin = cosched.generate_lublin(3000, 64, seed=5, load=0.95)
    assert check_against_pure_python(lublin, 64, 400, 32, (1, 2), 1) > 700


def test_a_lean_environment_gives_the_same_observations_without_copies_or_info():
    kw = dict(episode_jobs=64, queue_size=8, backfill=True)
    full, lean = BatchSchedulingEnv(**kw), BatchSchedulingEnv(**kw, copy=False, info=False)
    a, info = full.reset(seed=3)
    b, empty = lean.reset(seed=3)
    rng = np.random.default_rng(1)
    done = False
    while not done:
        np.testing.assert_array_equal(a, b)
        assert empty == {} and lean.visible == int(info["action_mask"].sum())
        assert (lean.action_masks() == info["action_mask"].astype(bool)).all()
        action = int(rng.integers(lean.visible))
        a, ra, done, _, info = full.step(action)
        view, rb, done_b, _, empty = lean.step(action)
        assert view is b and ra == rb and done == done_b
    assert lean.visible == 0


def test_the_mask_marks_the_visible_jobs_and_a_masked_pick_is_the_last_visible():
    env = BatchSchedulingEnv(episode_jobs=64, queue_size=8)
    obs, info = env.reset(seed=4)
    mask = info["action_mask"]
    assert mask.dtype == np.int8 and mask.sum() >= 1 and (env.action_masks() == mask.astype(bool)).all()
    env.step(7)  # past the visible jobs when fewer than 8 wait: not an error


def test_vector_environments_run():
    envs = gymnasium.vector.SyncVectorEnv(
        [lambda: BatchSchedulingEnv(episode_jobs=32, queue_size=8) for _ in range(3)])
    obs, _ = envs.reset(seed=[1, 2, 3])
    assert obs.shape == (3, 64)
    for _ in range(50):
        obs, reward, term, trunc, _ = envs.step(np.zeros(3, dtype=np.int64))
    envs.close()


def test_parameters_are_checked():
    with pytest.raises(ValueError, match="metric"):
        BatchSchedulingEnv(metric="fairness")
    with pytest.raises(ValueError, match="episode_jobs"):
        BatchSchedulingEnv(episode_jobs=10**9)
    with pytest.raises(ValueError, match="layout"):
        BatchSchedulingEnv(layout="image")
    env = BatchSchedulingEnv(episode_jobs=16, layout="compact", metric="wait")
    assert env.observation_space.shape == (128 * 4,)


def test_step_before_reset_is_an_error():
    env = BatchSchedulingEnv(episode_jobs=16)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_the_native_vector_env_equals_sync_vector_env_step_for_step():
    kw = dict(episode_jobs=32, queue_size=8, backfill=True)
    ref = gymnasium.vector.SyncVectorEnv([lambda: BatchSchedulingEnv(**kw) for _ in range(3)])
    native = cosched.gym.BatchVectorEnv(3, **kw)
    a_obs, a_info = ref.reset(seed=5)
    b_obs, b_info = native.reset(seed=5)
    rng = np.random.default_rng(0)
    episodes = 0
    for _ in range(400):
        np.testing.assert_array_equal(a_obs, b_obs)
        np.testing.assert_array_equal(a_info["action_mask"], b_info["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0
                            for m in b_info["action_mask"]], dtype=np.int64)
        a_obs, a_rew, a_term, a_trunc, a_info = ref.step(actions)
        b_obs, b_rew, b_term, b_trunc, b_info = native.step(actions)
        np.testing.assert_array_equal(a_rew, b_rew)
        np.testing.assert_array_equal(a_term, b_term)
        assert not b_trunc.any()
        episodes += int(b_term.sum())
    assert episodes >= 6  # autoresets were exercised


def test_make_vec_gives_the_native_vector_env():
    envs = gymnasium.make_vec("cosched/BatchScheduling-v0", num_envs=4,
                              vectorization_mode="vector_entry_point", episode_jobs=16,
                              queue_size=8)
    assert isinstance(envs, cosched.gym.BatchVectorEnv)
    obs, info = envs.reset(seed=1)
    assert obs.shape == (4, 64) and info["action_mask"].shape == (4, 8)
    obs2, *_ = envs.step(np.zeros(4, dtype=np.int64))
    assert obs2.shape == (4, 64)
    with pytest.raises(RuntimeError, match="reset"):
        cosched.gym.BatchVectorEnv(2, episode_jobs=16).step(np.zeros(2, dtype=np.int64))


def test_the_simulator_pins_the_buffers_it_writes_observations_into():
    # Observations are written in place over the last one: the buffers cannot move or be
    # resized while the environment lives, and the views handed out are read-only.
    from cosched._cosched import BatchEnv
    from cosched.gym import BatchVectorEnv, _config

    config = _config(None, episode_jobs=64)
    obs, mask = bytearray(4 * config.observation_len), bytearray(config.queue_size)
    core = BatchEnv(config, obs, mask)
    with pytest.raises(BufferError):
        obs.extend(b"\0")
    (visible, _, _, _), _ = core.reset(0)
    assert visible > 0 and np.frombuffer(obs, dtype="=f4").any()
    with pytest.raises(ValueError, match="bytes"):
        BatchEnv(config, bytearray(3), bytearray(config.queue_size))
    lean, _ = BatchSchedulingEnv(episode_jobs=64, copy=False).reset(seed=0)
    vec, _ = BatchVectorEnv(2, episode_jobs=64, copy=False).reset(seed=0)
    for view in (lean, vec):
        with pytest.raises(ValueError):
            view[0] = 1.0
    copied, _ = BatchSchedulingEnv(episode_jobs=64).reset(seed=0)
    copied[0] = 1.0  # a copy is the caller's
