"""The procedures runPlan carries out (career.yaml): data, read by lluma_agent/loop/plans.py."""
