"""The Metric definitions page as data: every metric of the contract (ARCHITECTURE.md §5) and a guide.

Each :class:`Metric` holds what a reader needs to interpret one number: the formula (LaTeX for KaTeX,
as ``st.latex`` renders it), its perfect value, what a disparity in it means for the people affected,
where it comes from, and where ``fairness_core`` departs from the source's reference implementation
(empty when it does not). Metrics are grouped into :class:`Family` sections, each shown on one page.
:data:`GUIDE` is a question-driven guide to choosing metrics, in the spirit of the Aequitas fairness
tree. Nothing here imports Streamlit or ``fairness_core``.
"""

from __future__ import annotations

from dataclasses import dataclass

# The app's pages, by their navigation titles.
PAGES = ("Data", "Subgroup AUCs", "Rate disparities", "Calibration", "Class-wise bias", "Dataset metrics",
         "Metric definitions")


@dataclass(frozen=True)
class Metric:
    """One metric: how it is computed and how to read it."""

    key: str  # anchor on the page, unique
    name: str  # the field's standard term
    functions: tuple[str, ...]  # public fairness_core names, the main one first
    formula: str  # LaTeX (KaTeX subset)
    perfect: str
    meaning: str  # what a disparity means for the people affected
    source: str
    differs: str = ""  # where we differ from the reference implementation; empty when we don't
    where: str = ""  # where the app shows it, when not simply on its family's page


@dataclass(frozen=True)
class Family:
    """A section of the page: metrics of one kind, shown on one page of the app."""

    key: str
    title: str
    page: str
    intro: str
    metrics: tuple[Metric, ...]


@dataclass(frozen=True)
class Answer:
    """One answer to a guide question: what to look at, and on which page."""

    answer: str
    look_at: str
    metrics: tuple[str, ...]  # Metric keys
    page: str  # one of PAGES, or "" when no single page shows it (look_at then says where)


@dataclass(frozen=True)
class Question:
    question: str
    hint: str
    answers: tuple[Answer, ...]


NOTATION = (
    "**Notation.** For a subgroup *g*: TP, FP, TN, FN are its confusion counts at the decision threshold "
    "(predicted positive ŷ = 1 when the score is at least the threshold), N its number of rows, "
    "*g*⁺ and *g*⁻ its positive and negative rows. The **background** *b* of *g* is every valid row not in *g*. "
    "A subgroup's **reference** is what it is compared with: the rest of the population (its background, "
    "the default), the whole population, every other subgroup (pairwise), or a subgroup you name.\n\n"
    "**Undefined values and small subgroups.** A metric undefined for a subgroup (a zero denominator, one "
    "class only) is NaN with its counts and a note, never a silent 0 or 1. Subgroups with fewer rows than the "
    "minimum size (default 30) are listed, flagged *small*, and left out of every reduction over subgroups or "
    "pairs (power means, disparity reductions, the unweighted average bias, the smoothed EDF maximum) unless "
    "you include them; the seeds' reference implementations have no such rule."
)

_BORKAN = ("Borkan, Dixon, Sorensen, Thain and Vasserman (2019), *Nuanced Metrics for Measuring Unintended "
           "Bias with Real Data for Text Classification*; seed 000 (Jigsaw Unintended Bias competition)")
_ORACLE = "seed 004 (Oracle AutoMLx group fairness metrics)"
_DWORK = "Dwork, Hardt, Pitassi, Reingold and Zemel (2012), *Fairness Through Awareness*"
_HARDT = "Hardt, Price and Srebro (2016), *Equality of Opportunity in Supervised Learning*"
_CHOULDECHOVA = ("Chouldechova (2017), *Fair Prediction with Disparate Impact: A Study of Bias in Recidivism "
                 "Prediction Instruments*")
_AEQUITAS = "Saleiro et al. (2018), *Aequitas: A Bias and Fairness Audit Toolkit*"
_SPEICHER = ("Speicher, Heidari, Grgić-Hlača, Gummadi, Singla, Weller and Zafar (2018), *A Unified Approach to "
             "Quantifying Algorithmic Unfairness: Measuring Individual & Group Unfairness via Inequality Indices*")
_GUO = "Guo, Pleiss, Sun and Weinberger (2017), *On Calibration of Modern Neural Networks*"
_NAEINI = ("Naeini, Cooper and Hauskrecht (2015), *Obtaining Well Calibrated Probabilities Using Bayesian "
           "Binning*")
_EXFAIRNESS = "seed 001 (ExFairness calibration metric)"
_SKLEGO = "seed 003 (scikit-lego fairness scores)"
_AUDMETRIC = "seed 002 (audmetric `unweighted_average_bias`)"
_BINS = ("Bins are [low, high) except the last, which is closed, so a score of exactly 1.0 is counted; the "
         "ExFairness reference implementation drops it. These are the bins of scikit-learn's "
         "`calibration_curve`, except that a score exactly on an inner edge goes to the upper bin (scikit-learn "
         "puts it in the lower one).")
_SMALL = "Small subgroups are left out unless included."

_AUC_DEF = (r"\operatorname{AUC}(P, N) = \frac{1}{\lvert P \rvert\,\lvert N \rvert} \sum_{i \in P} \sum_{j \in N}"
            r"\Big(\mathbf{1}[s_i > s_j] + \tfrac{1}{2}\,\mathbf{1}[s_i = s_j]\Big)")
_DIST = (r"d(a, b) = \begin{cases} \lvert a - b \rvert & \text{diff} \\[2pt] "
         r"\dfrac{\max(a, b)}{\min(a, b)} & \text{ratio} \end{cases}")


def _rate(key, name, functions, fraction, meaning, source, differs=""):
    return Metric(key, name, functions, fraction, "equal in every subgroup: disparity 0 (diff) or 1 (ratio)",
                  meaning, source, differs)


AUCS = Family(
    "aucs", "Ranking: bias-aware AUCs", "Subgroup AUCs",
    "How well the score ranks positives above negatives, within each identity subgroup and across it and its "
    "background. They need a score but no threshold. s is the score; *b* is the background.",
    (
        Metric(
            "subgroup-auc", "Subgroup AUC", ("subgroup_auc", "bias_auc_table"),
            r"\begin{gathered} \text{Subgroup AUC}_g = \operatorname{AUC}(g^{+},\, g^{-}) \\ " + _AUC_DEF
            + r" \end{gathered}",
            "1 (0.5 is no better than chance)",
            "A low subgroup AUC means the score separates people poorly within the group: its members who are "
            "truly positive (a toxic comment, a person who will repay) are not reliably scored above those who "
            "are not, so every threshold makes more mistakes for them.",
            _BORKAN,
            "An AUC is NaN with a note when its rows have no positives or no negatives; the reference code calls "
            "scikit-learn's `roc_auc_score`, whose behaviour there depends on the scikit-learn version: current "
            "versions return NaN with an `UndefinedMetricWarning`, older ones raise an error.",
        ),
        Metric(
            "bpsn-auc", "BPSN AUC (background positive, subgroup negative)", ("bpsn_auc",),
            r"\text{BPSN AUC}_g = \operatorname{AUC}(b^{+},\, g^{-})",
            "1",
            "A low BPSN AUC means the group's negatives are scored higher than other people's positives: "
            "harmless comments that mention the identity look more toxic than toxic comments that do not, so at "
            "any threshold the group gets more false positives.",
            _BORKAN,
        ),
        Metric(
            "bnsp-auc", "BNSP AUC (background negative, subgroup positive)", ("bnsp_auc",),
            r"\text{BNSP AUC}_g = \operatorname{AUC}(g^{+},\, b^{-})",
            "1",
            "A low BNSP AUC means the group's positives are scored lower than other people's negatives: toxic "
            "comments aimed at the group are missed, or qualified members are ranked below unqualified "
            "outsiders, so the group gets more false negatives.",
            _BORKAN,
        ),
        Metric(
            "power-mean", "Generalized power mean", ("power_mean",),
            r"M_p(v_1, \dots, v_k) = \Big(\tfrac{1}{k} \sum_{i=1}^{k} v_i^{\,p}\Big)^{1/p}, \qquad "
            r"M_0(v_1, \dots, v_k) = \Big(\prod_{i=1}^{k} v_i\Big)^{1/k}",
            "1 when every AUC is 1 (it always lies between the smallest and the largest value)",
            "With p = −5 the summary is pulled toward the worst subgroup, so good results for large groups "
            "cannot hide a poor result for one small group.",
            "Jigsaw Unintended Bias in Toxicity Classification competition (Conversation AI, 2019), after "
            "Borkan et al. (2019); seed 000 (Jigsaw)",
            "Undefined (NaN) AUCs are left out of the mean and their number reported; the reference code would "
            "return NaN. " + _SMALL,
        ),
        Metric(
            "bias-auc-score", "Bias AUC score", ("bias_auc_score", "summarize_bias_auc"),
            r"\begin{aligned} \text{score} &= w \cdot \operatorname{AUC}_{\text{overall}} + (1 - w) \cdot \tfrac{1}{3}"
            r"\Big(M_p(\text{Subgroup AUCs}) \\ &\qquad + M_p(\text{BPSN AUCs}) + M_p(\text{BNSP AUCs})\Big), "
            r"\qquad w = 0.25,\ p = -5 \end{aligned}",
            "1",
            "One number for comparing models: it drops when a model ranks well overall but poorly for, or "
            "against, some identity group, so a model that fails one group scores lower than its overall AUC "
            "suggests.",
            "Jigsaw Unintended Bias in Toxicity Classification competition (2019) final metric; " + _BORKAN,
            "The power means are taken over subgroups that are not small and whose AUCs are defined (see "
            "Generalized power mean).",
        ),
    ),
)

RATES = Family(
    "rates", "Rates at a decision threshold", "Rate disparities",
    "Each rate is computed per subgroup from its confusion counts at the threshold (or from the given "
    "predicted labels), then compared with the subgroup's reference (see Disparity below). A zero denominator "
    "gives NaN with a note.",
    (
        _rate("selection-rate", "Selection rate (statistical parity)", ("model_statistical_parity", "group_rates"),
              r"\text{SR}_g = \frac{\mathrm{TP}_g + \mathrm{FP}_g}{N_g} = P(\hat{y} = 1 \mid g)",
              "A higher selection rate for a group means its members receive the positive decision (a loan, an "
              "interview, a flag) more often, whatever their true outcomes.",
              _DWORK + "; " + _ORACLE),
        _rate("tpr", "True positive rate (equal opportunity)", ("true_positive_rate_disparity", "group_rates"),
              r"\text{TPR}_g = \frac{\mathrm{TP}_g}{\mathrm{TP}_g + \mathrm{FN}_g} = P(\hat{y} = 1 \mid y = 1, g)",
              "A lower TPR for a group means its members who truly qualify (would repay a loan, need care) are "
              "recognised less often, so they miss out on the benefit more.",
              _HARDT + "; " + _ORACLE),
        _rate("fpr", "False positive rate", ("false_positive_rate_disparity", "group_rates"),
              r"\text{FPR}_g = \frac{\mathrm{FP}_g}{\mathrm{FP}_g + \mathrm{TN}_g} = P(\hat{y} = 1 \mid y = 0, g)",
              "A higher FPR for a group means its members who would not reoffend (or did nothing wrong) are "
              "flagged as high risk more often.",
              _CHOULDECHOVA + "; " + _ORACLE),
        _rate("fnr", "False negative rate", ("false_negative_rate_disparity", "group_rates"),
              r"\text{FNR}_g = \frac{\mathrm{FN}_g}{\mathrm{FN}_g + \mathrm{TP}_g} = 1 - \text{TPR}_g",
              "A higher FNR for a group means its truly positive members are missed more often: patients who need "
              "a referral do not get one, abusive comments aimed at the group stay up.",
              _CHOULDECHOVA + "; " + _ORACLE),
        _rate("for", "False omission rate", ("false_omission_rate_disparity", "group_rates"),
              r"\text{FOR}_g = \frac{\mathrm{FN}_g}{\mathrm{FN}_g + \mathrm{TN}_g} = P(y = 1 \mid \hat{y} = 0, g)",
              "A higher FOR for a group means a negative decision is wrong more often for it: among its members "
              "who were turned down, more would in fact have repaid or needed the help.",
              _AEQUITAS + "; " + _ORACLE),
        _rate("fdr", "False discovery rate", ("false_discovery_rate_disparity", "group_rates"),
              r"\text{FDR}_g = \frac{\mathrm{FP}_g}{\mathrm{FP}_g + \mathrm{TP}_g} = P(y = 0 \mid \hat{y} = 1, g)",
              "A higher FDR for a group means a positive decision is wrong more often for it: more of its flagged "
              "members (investigated for fraud, detained) were flagged needlessly.",
              _AEQUITAS + "; " + _ORACLE),
        _rate("error-rate", "Error rate", ("error_rate_disparity", "group_rates"),
              r"\text{ER}_g = \frac{\mathrm{FP}_g + \mathrm{FN}_g}{N_g}",
              "A higher error rate means the model is simply wrong more often for people in that group, in "
              "either direction.",
              _ORACLE),
        Metric(
            "disparity", "Disparity (difference or ratio) and its reduction", ("rate_disparity",),
            r"\begin{gathered} D = \operatorname{reduce}_{g}\; d\big(r_g,\ r_{\operatorname{ref}(g)}\big) \\[4pt] "
            + _DIST + r" \end{gathered}",
            "0 (diff) or 1 (ratio)",
            "The gap between how a group and its reference are treated on the chosen rate: an FPR difference of "
            "0.10 means that 10 more in every 100 of the group's actual negatives are wrongly flagged; a ratio of "
            "1.25 means a quarter more often.",
            _ORACLE + " (`distance_measure`, `reduction`); reference groups as in " + _AEQUITAS,
            "Ratio: inverted to be at least 1; both rates 0 gives 1 and exactly one 0 gives ∞ (flagged), cases "
            "the seed leaves open. Reference: the seeds offer no choice; `rest` (the default) is seed 004's "
            "definition, though Oracle's code actually computes every pair (`pairwise`), and Aequitas compares "
            "with a chosen reference group (a named subgroup here); `overall` is offered too. Reduction: `max` or "
            "`mean` over subgroups (or pairs), NaN values left out and counted; " + _SMALL.lower(),
        ),
        Metric(
            "equalized-odds", "Equalized odds", ("equalized_odds",),
            r"\operatorname{EO} = \operatorname{reduce}_{g}\; \max\Big(d\big(\text{TPR}_g,\ "
            r"\text{TPR}_{\operatorname{ref}(g)}\big),\ "
            r"d\big(\text{FPR}_g,\ \text{FPR}_{\operatorname{ref}(g)}\big)\Big)",
            "0 (diff) or 1 (ratio)",
            "The group differs from its reference in how often its qualified members are recognised or how "
            "often its unqualified members are wrongly flagged, whichever gap is larger.",
            _HARDT + "; " + _ORACLE,
            "We take the larger of the TPR and FPR disparities per comparison, then reduce (the defined one if "
            "the other is NaN). Oracle's code reduces each first and takes the larger of the two reduced numbers, "
            "which differs for the `mean` reduction.",
        ),
    ),
)

THEIL = Family(
    "theil", "Inequality of benefit: Theil index", "Rate disparities",
    "Each person gets a benefit from the decision: 2 for a false positive (a favourable decision not "
    "deserved by the label), 1 for a correct decision, 0 for a false negative (a deserved one withheld). "
    "This reads ŷ = 1 as the favourable outcome.",
    (
        Metric(
            "theil-individual", "Theil index (individual)", ("individual_theil_index",),
            r"b_i = \hat{y}_i - y_i + 1, \quad \mu = \tfrac{1}{n}\sum_{i=1}^{n} b_i, \quad "
            r"T = \frac{1}{n} \sum_{i=1}^{n} \frac{b_i}{\mu} \ln \frac{b_i}{\mu} \quad (0 \ln 0 = 0)",
            "0",
            "Above 0 when benefits are unevenly spread over individuals, whatever their group: some people get "
            "undeserved favourable decisions while others are denied deserved ones.",
            _SPEICHER + "; " + _ORACLE,
        ),
        Metric(
            "theil-between", "Between-group Theil index", ("between_group_theil_index",),
            r"T_{\text{between}} = \frac{1}{n} \sum_{g} n_g\, \frac{\mu_g}{\mu} \ln \frac{\mu_g}{\mu}, \qquad "
            r"\mu_g = \tfrac{1}{n_g} \sum_{i \in g} b_i",
            "0",
            "Above 0 when groups receive different average benefit: one group gets more undeserved favourable "
            "decisions, or more deserved ones withheld, than another.",
            _SPEICHER + "; " + _ORACLE,
        ),
        Metric(
            "theil-disparity", "Theil index disparity", ("theil_index",),
            r"\operatorname{TI} = \operatorname{reduce}_{g}\; T_{\text{between}}\big(\{\, g,\ "
            r"\operatorname{ref}(g) \,\}\big)",
            "0",
            "Above 0 when a subgroup and its reference (the rest, or the other subgroup of a pair) differ in how "
            "their errors fall: one side more often gets the favourable decision undeservedly, the other more "
            "often has it withheld.",
            _SPEICHER + "; " + _ORACLE,
            "Oracle's pairwise code adds ln(n / (nᵢ + nⱼ)) to every pair, so its value is never 0 with three or "
            "more groups, even for perfect predictions; ours is the between-group index of the two sides' rows "
            "only, so perfect predictions give 0, as the seed says.",
        ),
    ),
)

SKLEGO = Family(
    "scores", "Scores: p% rule, equal opportunity, correlation, slices", "Rate disparities",
    "Higher is better; 1 (or 0 for the correlation score) is parity. z is a binary sensitive attribute: "
    "z = 1 for a subgroup's members, z = 0 for the rest.",
    (
        Metric(
            "p-percent", "p% score (the 80 % rule)", ("p_percent_score",),
            r"p\% = \min\!\left(\frac{P(\hat{y} = 1 \mid z = 1)}{P(\hat{y} = 1 \mid z = 0)},\ "
            r"\frac{P(\hat{y} = 1 \mid z = 0)}{P(\hat{y} = 1 \mid z = 1)}\right)",
            "1; at least 0.8 meets the 80 % (four-fifths) rule",
            "A score of 0.6 means one group receives the positive decision only 60 % as often as the other; "
            "below 0.8 it fails the four-fifths rule used in US employment selection guidance.",
            "Zafar, Valera, Gomez Rodriguez and Gummadi (2017), *Fairness Constraints: Mechanisms for Fair "
            "Classification*; the 80 % rule of the US Uniform Guidelines on Employee Selection Procedures "
            "(1978); " + _SKLEGO,
            "Both rates 0 gives 1 (no disparity, with a note); scikit-lego returns 0. An empty side gives NaN "
            "with a note; scikit-lego returns 1 after a 'mean of empty slice' warning. scikit-lego needs a binary "
            "attribute; for a many-valued one the dashboard shows each subgroup against the rest, and the minimum.",
        ),
        Metric(
            "equal-opportunity", "Equal opportunity score", ("equal_opportunity_score",),
            r"\text{EOS} = \min\!\left(\frac{P(\hat{y} = 1 \mid z = 1, y = 1)}{P(\hat{y} = 1 \mid z = 0, y = 1)},\ "
            r"\frac{P(\hat{y} = 1 \mid z = 0, y = 1)}{P(\hat{y} = 1 \mid z = 1, y = 1)}\right)",
            "1",
            "A score of 0.7 means the qualified members of one group are recognised (given the loan, the "
            "interview) only 70 % as often as the qualified members of the other.",
            _HARDT + "; " + _SKLEGO,
            "Both true positive rates 0 gives 1 with a note (scikit-lego also returns 1, after a division "
            "warning). A side with no positive labels gives NaN with a note; scikit-lego returns 0. Many-valued "
            "attributes as for the p% score.",
        ),
        Metric(
            "correlation", "Correlation score", ("correlation_score",),
            r"\text{CS} = -\lvert r(\hat{y}, z) \rvert, \qquad r(\hat{y}, z) = "
            r"\frac{\sum_i (\hat{y}_i - \bar{y})(z_i - \bar{z})}"
            r"{\sqrt{\sum_i (\hat{y}_i - \bar{y})^2}\,\sqrt{\sum_i (z_i - \bar{z})^2}}",
            "0 (no linear association; −1 is the worst)",
            "A score far below 0 means predictions move with the attribute: the older the applicant, for "
            "example, the lower the predicted chance of being hired.",
            "Pearson correlation, as scored by scikit-lego's `correlation_score`; " + _SKLEGO,
        ),
        Metric(
            "subset", "Subset score (slices)", ("subset_score",),
            r"m_S = m\big(\{ (y_i, \hat{y}_i) : i \in S \}\big), \qquad S = \{\, i : \text{mask}_i \,\}",
            "that of the metric m applied",
            "Any metric on a slice you define (applicants over 60 in one region, say): a worse value there than "
            "overall means the model serves that slice worse. An empty slice gives NaN.",
            _SKLEGO,
            where="every page: **Slice by** in the sidebar restricts all of them to the slice",
        ),
    ),
)

CALIBRATION = Family(
    "calibration", "Calibration", "Calibration",
    "Whether a predicted probability p̂ means the same for every group. Scores must lie in [0, 1]. The m bins "
    "have edges e₀ < … < eₘ: uniform (equal widths) or quantile (of all rows pooled); n_b rows fall in bin b.",
    (
        Metric(
            "reliability", "Reliability diagram", ("reliability_diagram",),
            r"\begin{aligned} B_b &= \{\, i : e_{b-1} \le \hat{p}_i < e_b \,\}\ (b < m), \qquad "
            r"B_m = \{\, i : e_{m-1} \le \hat{p}_i \le e_m \,\} \\ "
            r"\operatorname{conf}(b) &= \frac{1}{n_b} \sum_{i \in B_b} \hat{p}_i, \qquad "
            r"\operatorname{acc}(b) = \frac{1}{n_b} \sum_{i \in B_b} y_i \end{aligned}",
            "every point on the diagonal: acc(b) = conf(b)",
            "Points below the diagonal mean the group's risk is overstated (a predicted 70 % happens less than "
            "70 % of the time), points above mean it is understated; when groups' curves differ, the same score "
            "means different things for different people.",
            _GUO + "; " + _EXFAIRNESS,
            _BINS,
        ),
        Metric(
            "ece", "Expected calibration error (ECE)", ("expected_calibration_error", "calibration_errors"),
            r"\operatorname{ECE} = \sum_{b=1}^{m} \frac{n_b}{n}\, \big\lvert \operatorname{acc}(b) - "
            r"\operatorname{conf}(b) \big\rvert",
            "0",
            "An ECE of 0.08 for a group means its predicted probabilities are off by 8 percentage points on "
            "average: anyone reading the score as a risk misjudges that group's real risk.",
            _NAEINI + "; " + _GUO + "; " + _EXFAIRNESS,
            _BINS,
        ),
        Metric(
            "mce", "Maximum calibration error (MCE)", ("maximum_calibration_error", "calibration_errors"),
            r"\operatorname{MCE} = \max_{b\,:\, n_b > 0}\ \big\lvert \operatorname{acc}(b) - "
            r"\operatorname{conf}(b) \big\rvert",
            "0",
            "The worst bin's gap: some range of scores (people scored around 0.9, say) is badly miscalibrated "
            "for the group even when its average error looks small.",
            _NAEINI + "; " + _EXFAIRNESS,
            "The bins of the reliability diagram: the last bin is closed, so a score of exactly 1.0 is counted "
            "(the ExFairness reference implementation drops it).",
        ),
        Metric(
            "calibration-disparity", "Calibration disparity (ECE disparity)", ("calibration_disparity",),
            r"\begin{gathered} \Delta_{\text{ECE}} = \operatorname{reduce}_{g}\; d\big(\operatorname{ECE}_g,\ "
            r"\operatorname{ECE}_{\operatorname{ref}(g)}\big) \qquad \big(\text{two groups: } "
            r"\lvert \operatorname{ECE}_A - \operatorname{ECE}_B \rvert\big) \\ \text{passes when } "
            r"\Delta_{\text{ECE}} \le \tau, \quad \tau = 0.1 \end{gathered}",
            "0",
            "The score is a more trustworthy probability for one group than for another: a predicted 20 % risk "
            "of default is accurate for one group while the real rate is 35 % for the other.",
            "Pleiss, Raghavan, Wu, Kleinberg and Weinberger (2017), *On Fairness and Calibration*; " + _EXFAIRNESS,
            "ExFairness compares exactly two groups; with more subgroups each is compared with its reference (the "
            "rest by default) with the chosen distance and reduction, which for two groups and `diff` gives the "
            "same number. The last bin is closed, as for the ECE.",
        ),
        Metric(
            "brier", "Brier score", ("calibration_errors",),
            r"\operatorname{BS}_g = \frac{1}{N_g} \sum_{i \in g} (\hat{p}_i - y_i)^2",
            "0",
            "A higher Brier score for a group means its predicted probabilities are further from what happened, "
            "through poor calibration, poor separation, or both.",
            "Brier (1950), *Verification of Forecasts Expressed in Terms of Probability*; shown beside "
            + _EXFAIRNESS,
        ),
    ),
)

CLASSWISE = Family(
    "classwise", "Class-wise bias", "Class-wise bias",
    "For multi-class labels. For a class c and subgroup g: TP is rows of class c predicted c, FP rows of "
    "another class predicted c, FN rows of class c predicted another class.",
    (
        Metric(
            "recall-class", "Recall per class", ("unweighted_average_bias",),
            r"\operatorname{recall}_{c,g} = \frac{\mathrm{TP}_{c,g}}{\mathrm{TP}_{c,g} + \mathrm{FN}_{c,g}}",
            "equal in every subgroup (and 1)",
            "Lower recall of class c for a group means its members who truly belong to c are recognised as c "
            "less often: an emotion model, say, detects anger less often in women's voices than in men's.",
            "audmetric (audEERING) `recall_per_class`; " + _AUDMETRIC,
        ),
        Metric(
            "precision-class", "Precision per class", ("unweighted_average_bias",),
            r"\operatorname{precision}_{c,g} = \frac{\mathrm{TP}_{c,g}}{\mathrm{TP}_{c,g} + \mathrm{FP}_{c,g}}",
            "equal in every subgroup (and 1)",
            "Lower precision of class c for a group means that when the model assigns c to a member of that "
            "group, it is wrong more often.",
            "audmetric (audEERING) `precision_per_class`; " + _AUDMETRIC,
        ),
        Metric(
            "fscore-class", "F-score per class", ("unweighted_average_bias",),
            r"F_{c,g} = \frac{2\, \mathrm{TP}_{c,g}}{2\, \mathrm{TP}_{c,g} + \mathrm{FP}_{c,g} + \mathrm{FN}_{c,g}}",
            "equal in every subgroup (and 1)",
            "A lower F-score of class c for a group combines both failures: members of c are missed and others "
            "are wrongly put in c more often for that group.",
            "audmetric (audEERING) `fscore_per_class`; " + _AUDMETRIC,
        ),
        Metric(
            "uab", "Unweighted average bias", ("unweighted_average_bias",),
            r"\operatorname{UAB} = \frac{1}{\lvert C' \rvert} \sum_{c \in C'} \operatorname{reduce}_{g}\, "
            r"m_{c,g}, \qquad \operatorname{reduce} = \sigma \text{ (population std.) or } m_{c,g_1} - m_{c,g_2}",
            "0",
            "A larger value means the model's quality for some classes depends on the group. The mean over "
            "classes is unweighted, so a rare class counts as much as a common one. C′ is the classes with at "
            "least two defined subgroup scores.",
            "audmetric (audEERING), which assesses equalized odds per class, after " + _HARDT + "; " + _AUDMETRIC,
            _SMALL,
        ),
    ),
)

DATASET = Family(
    "dataset", "Dataset metrics (labels only)", "Dataset metrics",
    "These assess the labels before any model: a model trained on them tends to reproduce what they show.",
    (
        Metric(
            "base-rate", "Dataset statistical parity (base rates)", ("dataset_statistical_parity",),
            r"\text{BR}_g = \frac{\lvert g^{+} \rvert}{N_g}, \qquad "
            r"D = \operatorname{reduce}_{g}\; d\big(\text{BR}_g,\ \text{BR}_{\operatorname{ref}(g)}\big)",
            "0 (diff) or 1 (ratio)",
            "The labels record the positive outcome at different rates for different groups. If the labels "
            "reflect past decisions (arrests rather than offences, past hires), a model trained on them learns "
            "that gap.",
            _DWORK + "; " + _ORACLE,
            "Distance, reference and reduction as for rate disparities (ratio ≥ 1, both 0 → 1, one 0 → ∞; "
            "reference `rest` by default).",
        ),
        Metric(
            "consistency", "Consistency (k nearest neighbours)", ("consistency",),
            r"\begin{gathered} \text{inconsistency} = \frac{1}{n} \sum_{i=1}^{n} \frac{1}{k} "
            r"\sum_{j \in \operatorname{kNN}(i)} \mathbf{1}[y_j \ne y_i] \\ \text{consistency}_{\text{Zemel}} = "
            r"1 - \frac{1}{n} \sum_{i=1}^{n} \Big\lvert y_i - \frac{1}{k} \sum_{j \in \operatorname{kNN}(i)} y_j "
            r"\Big\rvert = 1 - \text{inconsistency} \end{gathered}",
            "0 for the share of differing neighbours (the seed's form); 1 for Zemel et al.'s consistency",
            "A high share means people who look alike on the chosen features carry different labels: similar "
            "individuals are not treated alike, so the labels may be noisy or depend on something else, "
            "possibly the protected attribute.",
            "Zemel, Wu, Swersky, Pitassi and Dwork (2013), *Learning Fair Representations*; " + _ORACLE,
            "The seed documents k = 5 neighbours but no choice of features or distance: here you choose numeric "
            "features, which are standardised (mean 0, standard deviation 1), distances are Euclidean, and each "
            "row's own point is excluded from its neighbours. When more rows than fit lie at the k-th "
            "neighbour's distance (repeated feature rows), the closer rows count fully and the tied rows share "
            "the remaining places equally, so the value does not depend on the order of the rows (a plain "
            "k-nearest-neighbour search picks among them by row order). Both forms are shown.",
        ),
        Metric(
            "smoothed-edf", "Smoothed empirical differential fairness (EDF)", ("smoothed_edf",),
            r"\begin{gathered} s_g(1) = \frac{\lvert g^{+} \rvert + \alpha}{N_g + 2\alpha}, \quad "
            r"s_g(0) = 1 - s_g(1), \quad \alpha = \frac{\text{concentration}}{2} \\ "
            r"\varepsilon = \max_{g,\, h}\ \max_{y \in \{0, 1\}} \big\lvert \ln s_g(y) - \ln s_h(y) \big\rvert "
            r"\end{gathered}",
            "0",
            "exp(ε) bounds how many times more likely one group is than another to carry a label: ε = 0.69 means "
            "one group is up to twice as likely to have the positive (or the negative) label.",
            "Foulds, Islam, Keya and Pan (2020), *An Intersectional Definition of Fairness*; " + _ORACLE,
            "The maximum over every pair of subgroups, as Foulds et al. define it, with the pair that attains "
            "it reported; seed 004's text describes each subgroup against the rest of the population. "
            "Overlapping subgroups (identity columns, attributes not intersected) are refused: ε compares "
            "separate groups of people. " + _SMALL,
        ),
    ),
)

FAMILIES: tuple[Family, ...] = (AUCS, RATES, THEIL, SKLEGO, CALIBRATION, CLASSWISE, DATASET)
METRICS: tuple[Metric, ...] = tuple(m for family in FAMILIES for m in family.metrics)
BY_KEY = {m.key: m for m in METRICS}

GUIDE_INTRO = (
    "Fairness metrics answer different questions, and no model can satisfy them all at once when groups' "
    "base rates differ. Start from the decision and the people it affects; each answer names the metrics to "
    "assess and the page that shows them."
)

GUIDE: tuple[Question, ...] = (
    Question(
        "Do you need equal selection regardless of qualification?",
        "For example, when labels are known to be unreliable, or when each group should receive the outcome "
        "in proportion to its size.",
        (
            Answer("Yes", "selection-rate disparity (statistical parity) and the p% score (the 80 % rule)",
                   ("selection-rate", "p-percent"), "Rate disparities"),
            Answer("No, errors matter more", "go on to the next question", (), ""),
        ),
    ),
    Question(
        "Is the decision punitive or assistive?",
        "Punitive: being flagged harms the person (detention, a fraud investigation, removal of a post). "
        "Assistive: being selected helps them (a loan, a benefit, an interview).",
        (
            Answer("Punitive, and you care about everyone who should not be flagged",
                   "false positive rate disparity", ("fpr",), "Rate disparities"),
            Answer("Punitive, and you care about the people who are flagged",
                   "false discovery rate disparity", ("fdr",), "Rate disparities"),
            Answer("Assistive, and you care about everyone who needs or deserves it",
                   "false negative rate disparity, true positive rate disparity and the equal opportunity score",
                   ("fnr", "tpr", "equal-opportunity"), "Rate disparities"),
            Answer("Assistive, and you care about the people turned down",
                   "false omission rate disparity", ("for",), "Rate disparities"),
            Answer("Both kinds of error matter",
                   "equalized odds, error-rate disparity and the Theil index",
                   ("equalized-odds", "error-rate", "theil-disparity"), "Rate disparities"),
        ),
    ),
    Question(
        "Are scores read as probabilities?",
        "A risk shown to a loan officer or a doctor as \"30 %\" must mean 30 % in every group.",
        (
            Answer("Yes", "reliability diagrams, ECE and MCE per subgroup, the calibration disparity and the "
                          "Brier score", ("reliability", "ece", "mce", "calibration-disparity", "brier"),
                   "Calibration"),
        ),
    ),
    Question(
        "Do you rank people, or is the threshold not fixed yet?",
        "A ranking (a review queue, a shortlist) has no single threshold; AUCs assess every threshold at once.",
        (
            Answer("Yes", "subgroup, BPSN and BNSP AUCs and the bias AUC score",
                   ("subgroup-auc", "bpsn-auc", "bnsp-auc", "bias-auc-score"), "Subgroup AUCs"),
        ),
    ),
    Question(
        "Is the label itself possibly biased?",
        "Labels that record past decisions (arrests, past hires) carry those decisions' disparities; error "
        "rates measured against them can look equal while the harm persists.",
        (
            Answer("Yes, or you do not know", "base-rate disparity, consistency and the smoothed EDF",
                   ("base-rate", "consistency", "smoothed-edf"), "Dataset metrics"),
        ),
    ),
    Question(
        "Does the model predict more than two classes?",
        "Emotions, diagnoses, document categories.",
        (
            Answer("Yes", "the unweighted average bias of per-class recall, precision or F-score",
                   ("uab", "recall-class", "precision-class", "fscore-class"), "Class-wise bias"),
        ),
    ),
    Question(
        "Is the attribute numeric, or is the group you worry about a slice you can describe?",
        "Age or income rather than categories; or applicants over 60 in one region.",
        (
            Answer("Numeric attribute", "the correlation score of the predictions with that column",
                   ("correlation",), "Rate disparities"),
            Answer("A slice", "the subset score: set **Slice by** in the sidebar and every page reports on that "
                   "slice", ("subset",), ""),
        ),
    ),
)
