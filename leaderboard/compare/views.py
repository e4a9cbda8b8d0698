"""The paired comparison of two submissions: the page `/compare/?a=&b=` and the API
`/api/compare/?a=&b=`, both from leaderboard.compare.submissions."""

from __future__ import annotations

from django.shortcuts import render
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from leaderboard.compare.submissions import (
    BOOTSTRAP_WORDS,
    ComparisonError,
    compare_submissions,
    comparison_json,
    submissions_to_compare,
)


def compare_page(request):
    try:
        a, b = submissions_to_compare(request.GET, request.user)
    except ComparisonError as error:
        return render(request, "leaderboard/compare_submissions.html", {"error": str(error)}, status=400)
    seeds_of = request.GET.get("seeds", "")
    comparison = compare_submissions(a, b, seeds_of=int(seeds_of) if seeds_of.isdigit() and len(seeds_of) < 19 else None)
    return render(
        request, "leaderboard/compare_submissions.html",
        {"comparison": comparison, "bootstrap_words": BOOTSTRAP_WORDS},
    )


class _SubmissionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    model = serializers.CharField()
    kind = serializers.CharField()


class _SeedSerializer(serializers.Serializer):
    seed = serializers.IntegerField()
    a_episode = serializers.IntegerField()
    b_episode = serializers.IntegerField()
    a = serializers.FloatField(allow_null=True, help_text="a's value; null: the episode has none")
    b = serializers.FloatField(allow_null=True)
    difference = serializers.FloatField(allow_null=True, help_text="a − b, null when either value is missing")
    outcome = serializers.ChoiceField(["win", "tie", "loss", "missing"], help_text="for a, in the metric's direction")
    replay = serializers.CharField(help_text="the two episodes side by side")


class _GameSerializer(serializers.Serializer):
    task = serializers.CharField()
    format = serializers.CharField()
    options = serializers.DictField()
    num_demonstrations = serializers.IntegerField()
    metric = serializers.CharField(help_text="the suite's primary metric")
    metric_label = serializers.CharField()
    higher_is_better = serializers.BooleanField()
    a_run = serializers.IntegerField()
    b_run = serializers.IntegerField()
    shared_seeds = serializers.IntegerField(help_text="seeds both runs finished")
    paired = serializers.IntegerField(help_text="shared seeds where both episodes have a value")
    missing = serializers.IntegerField(help_text="shared seeds where either episode has no value")
    unpaired_a = serializers.IntegerField(help_text="seeds only a finished")
    unpaired_b = serializers.IntegerField()
    mean_difference = serializers.FloatField(allow_null=True)
    ci95 = serializers.ListField(child=serializers.FloatField(), allow_null=True,
                                 help_text="percentile bootstrap 95 % interval; null with fewer than two pairs")
    better = serializers.ChoiceField(["a", "b"], allow_null=True, help_text="null: the interval contains 0")
    win = serializers.IntegerField()
    tie = serializers.IntegerField()
    loss = serializers.IntegerField()
    seeds = _SeedSerializer(many=True)


class ComparisonSerializer(serializers.Serializer):
    a = _SubmissionSerializer()
    b = _SubmissionSerializer()
    statistics = serializers.CharField()
    games = _GameSerializer(many=True)
    games_only_a = serializers.IntegerField()
    games_only_b = serializers.IntegerField()


@extend_schema(
    parameters=[
        OpenApiParameter("a", int, required=True, description="a submission id"),
        OpenApiParameter("b", int, required=True, description="another submission id"),
    ],
    responses={200: ComparisonSerializer, 400: dict},
)
@api_view(["GET"])
def compare(request):
    """Two submissions on every task × format × variant both played: episodes paired by
    seed, per-seed differences a − b of the value behind the suite's primary metric,
    their mean with a percentile bootstrap 95 % interval, and win/tie/loss counts."""
    try:
        a, b = submissions_to_compare(request.query_params, request.user)
    except ComparisonError as error:
        return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
    return Response(comparison_json(compare_submissions(a, b, every_seed=True)))
