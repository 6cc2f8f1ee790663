"""English articles of the demo web ("The Riverton Ledger", a fictional local paper)."""

from __future__ import annotations

from demo.content import Article, Visibility

COMMENTS_EN: tuple[tuple[str, str], ...] = (
    ("marta_k", "Finally. I have been asking for this since the last election."),
    ("OldTownResident", "Who is paying for all of this? Nobody ever says."),
    ("j.alvarez", "Great reporting, thanks for the details on the timeline."),
    ("cyclist42", "I will believe it when I see it finished."),
    ("Pat Brennan", "My street was left out again. Typical."),
)

ARTICLES_EN: tuple[Article, ...] = (
    Article(
        section="news",
        key="council-approves-riverside-bike-lanes",
        title="Council approves protected bike lanes along Riverside Drive",
        published="2024-05-03 09:15",
        author="Hannah Cole",
        comments=True,
        tags=("transport", "city council"),
        body=(
            "The Riverton city council voted 7 to 2 on Thursday night to build a protected "
            "bike lane along the full length of Riverside Drive, ending a debate that has run "
            "through three budget cycles and two public consultations.",
            "The two-way lane will be separated from traffic by a raised concrete curb and "
            "will replace one of the four car lanes between the Mill Street bridge and the "
            "ferry terminal. Construction is expected to begin in September and take about "
            "eight months.",
            "Supporters filled the council chamber, many of them parents who said they no "
            "longer let their children ride to school on the busy road. Opponents, mostly "
            "shop owners from the east end, warned that the loss of a traffic lane would "
            "push delivery trucks onto residential side streets.",
            "## What changes for drivers",
            "The city's traffic engineers expect travel times along the corridor to rise by "
            "about forty seconds at the evening peak. Left turns at Cedar Avenue will be "
            "banned during rush hours, and the signal timing at the bridge will be adjusted.",
            "- Parking on the river side of the drive will be removed.\n"
            "- Twelve loading zones will be added on the cross streets.\n"
            "- The speed limit will drop from 50 to 40 km/h.",
            "Councillor Ruth Okafor, who proposed the plan, said the vote was about safety "
            'rather than ideology. "Four people have been seriously injured on this stretch '
            'in two years," she said. "We are not waiting for a fifth."',
            "The project is budgeted at 6.4 million dollars, about half of which will come "
            "from a provincial active transportation grant awarded in March.",
        ),
    ),
    Article(
        section="news",
        key="rail-strike-ends-after-three-days",
        title="Regional rail strike ends after three days as union accepts new offer",
        published="2024-05-08 18:40",
        author="Daniel Osei",
        tags=("transport", "labour"),
        body=(
            "Commuter trains on all four regional lines will run normally from Thursday "
            "morning after the train operators' union accepted a revised contract offer late "
            "on Wednesday.",
            "The deal raises wages by 11 percent over three years and caps mandatory overtime "
            "at eight hours a week, the central demand of the strike. Members approved it by "
            "a margin of 68 percent in an online vote that closed at six in the evening.",
            "The three-day walkout stranded an estimated 90,000 daily riders. Traffic on the "
            "northern highway was backed up for more than ten kilometres on Tuesday, and "
            "several schools in the valley reported attendance well below normal.",
            "Transit authority chief executive Lena Fischer apologised to passengers and said "
            "monthly pass holders would receive a credit of one week on their June pass.",
        ),
    ),
    Article(
        section="news",
        key="library-extends-weekend-hours",
        title="Central library to open on Sundays starting in June",
        published="2024-05-14 11:05",
        author="Priya Raman",
        tags=("libraries",),
        body=(
            "The Riverton Central Library will open from noon to five on Sundays beginning "
            "June 2, the first time in eleven years that the main branch has had a "
            "seven-day schedule.",
            "The library board said a bequest from a retired schoolteacher covers the extra "
            "staff costs for at least two years. Branch libraries keep their current hours.",
            "Children's programming, including the Saturday reading club, will move to "
            "Sunday afternoons during the summer, when the reading room is at its busiest.",
        ),
    ),
    Article(
        section="news",
        key="bridge-repairs-close-lanes",
        title="Mill Street bridge repairs will close two lanes through August",
        published="2024-05-21 07:30",
        author="Hannah Cole",
        comments=True,
        tags=("transport", "roads"),
        body=(
            "Two of the four lanes on the Mill Street bridge will close from Monday for "
            "concrete repairs that the city says can no longer be postponed.",
            "An inspection last autumn found corrosion in the steel reinforcement under the "
            "eastbound deck, where road salt has seeped through cracks in the surface. "
            "Engineers rated the bridge safe for traffic but recommended that repairs start "
            "before next winter.",
            "## Detours and buses",
            "Eastbound traffic will share the westbound side, with one lane in each "
            "direction. Trucks heavier than 20 tonnes are asked to use the Harbour Road "
            "crossing instead. Bus routes 4 and 17 will keep their stops but run about "
            "five minutes later than scheduled during peak hours.",
            "The work is scheduled to finish by the end of August. The contractor will be "
            "paid a bonus of up to 150,000 dollars for finishing early and will pay a "
            "penalty for every day of delay after August 31.",
            "Residents of the Flats neighbourhood have complained that cut-through traffic "
            "has already increased since survey crews began work last week.",
        ),
    ),
    Article(
        section="news",
        key="farmers-market-moves-to-waterfront",
        title="Farmers market moves to the waterfront",
        published="2024-06-01 08:00",
        author="Priya Raman",
        tags=("community",),
        body=(
            "The Saturday farmers market opens at its new waterfront location next weekend, "
            "with room for forty more stalls than the old parking lot on Elm Street.",
        ),
    ),
    Article(
        section="news",
        key="water-rates-rise-four-percent",
        title="Water rates to rise four percent to pay for pipe replacement",
        published="2024-06-11 16:20",
        author="Daniel Osei",
        tags=("utilities", "city council"),
        body=(
            "Households in Riverton will pay about 38 dollars more a year for water after "
            "the council approved a four percent rate increase on Tuesday.",
            "The utility says the money will speed up the replacement of cast iron mains "
            "laid in the 1950s, which account for most of the roughly 120 breaks the city "
            "repairs every year. At the current pace, the last of the old pipes would not "
            "be replaced until 2061.",
            "- The increase takes effect on July 1.\n"
            "- Low-income households can apply for a rebate of up to 60 percent.\n"
            "- Sewer charges are unchanged this year.",
            "Councillor Mark Heller, who voted against the increase, said the utility should "
            "first explain why its administrative costs had grown faster than inflation for "
            "five years in a row.",
            "A public information session on the pipe programme will be held at City Hall "
            "on June 20.",
        ),
    ),
    Article(
        section="news",
        key="school-board-budget-hearing",
        title="School board delays budget vote after packed hearing",
        published="2024-06-18 21:10",
        author="Hannah Cole",
        visibility=Visibility.SITEMAP_ONLY,
        tags=("education",),
        body=(
            "The Riverton school board postponed its budget vote by two weeks on Monday "
            "after more than two hundred parents and teachers signed up to speak at a "
            "hearing that ran past midnight.",
            "The draft budget would close a 4.1 million dollar gap by merging two "
            "elementary schools in the north end and cutting the number of classroom "
            "assistants. Most speakers opposed the merger, arguing that it would put more "
            "than thirty children in some classes.",
            "Board chair Evelyn Marsh said trustees needed time to look at alternatives "
            "raised during the evening, including a proposal to delay the planned "
            "replacement of school buses by a year.",
            "The vote is now scheduled for July 2.",
        ),
    ),
    Article(
        section="science",
        key="deep-sea-coral-mapped",
        title="Researchers map a deep-sea coral reef off the northern shelf",
        published="2024-04-22 10:00",
        author="Tomas Lindqvist",
        comments=True,
        tags=("oceans", "biology"),
        body=(
            "A team from the Riverton Marine Institute has mapped a cold-water coral reef "
            "about 600 metres below the surface off the northern continental shelf, the "
            "largest such reef recorded in the region.",
            "Using a remotely operated vehicle and a multibeam sonar, the researchers traced "
            "the reef for almost fourteen kilometres along the edge of a submarine canyon. "
            "Unlike tropical corals, cold-water species do not depend on sunlight; they feed "
            "on plankton and organic particles carried by deep currents.",
            "## Why it matters",
            "Cold-water reefs grow extremely slowly, often less than a centimetre a year, "
            "and can take thousands of years to recover from damage. Bottom trawling is the "
            "main threat, and parts of the newly mapped reef show the scars of fishing gear.",
            '"We found broken coral rubble in long straight lines," said lead author '
            'Dr. Amara Singh. "That pattern only comes from trawl doors being dragged '
            'across the seabed."',
            "The institute has shared the maps with the federal fisheries department, which "
            "is reviewing whether to extend an existing protected area to cover the reef.",
            "The study was published this week in the Journal of Marine Systems.",
        ),
    ),
    Article(
        section="science",
        key="sodium-battery-pilot-plant",
        title="University pilot plant tests sodium batteries for the grid",
        published="2024-05-06 13:45",
        author="Grace Liu",
        tags=("energy", "technology"),
        body=(
            "Engineers at Riverton University have started a small pilot line that produces "
            "sodium-ion battery cells, a chemistry that avoids lithium and cobalt and could "
            "lower the cost of storing renewable power.",
            "Sodium is abundant and cheap, but its ions are larger and heavier than those of "
            "lithium, so sodium cells store less energy for their weight. For stationary "
            "storage next to a wind farm or a substation, weight matters much less than "
            "cost and lifetime.",
            "The team's cells have so far survived 4,000 full charge cycles while keeping "
            "more than 80 percent of their capacity. Professor Ian Mercer, who leads the "
            "project, said the next step is to show that the cells can be made with "
            "consistent quality at a few thousand units a month.",
            "- Capacity: 160 watt-hours per kilogram\n"
            "- Operating range: minus 30 to plus 55 degrees Celsius\n"
            "- Target cost: 20 percent below lithium iron phosphate",
            "A local utility has agreed to install a 500 kilowatt-hour test system at a "
            "substation in the industrial park next spring.",
        ),
    ),
    Article(
        section="science",
        key="comet-visible-to-naked-eye",
        title="Comet may be visible to the naked eye next week",
        published="2024-05-17 19:30",
        author="Tomas Lindqvist",
        tags=("astronomy",),
        body=(
            "A comet discovered in January could become bright enough to see without "
            "binoculars low in the western sky just after sunset from May 24, weather "
            "permitting.",
            "The Riverton Astronomy Club will set up telescopes in Hilltop Park on the "
            "evenings of May 25 and 26.",
        ),
    ),
    Article(
        section="science",
        key="songbird-migration-tags",
        title="Tiny radio tags reveal where the valley's songbirds spend the winter",
        published="2024-05-29 09:50",
        author="Grace Liu",
        tags=("biology", "birds"),
        body=(
            "Radio tags weighing less than a paperclip have shown that wood thrushes "
            "nesting in the Riverton valley spend the winter in a narrow strip of forest in "
            "southern Mexico and northern Guatemala, more than 3,500 kilometres away.",
            "Biologists fitted 86 birds with the tags last summer. The signals were picked "
            "up by a network of automated receiving towers that volunteers and universities "
            "have built across the continent over the past decade.",
            "The results suggest that the valley's population depends on a much smaller "
            "wintering area than previously thought, which makes it more vulnerable to "
            "forest clearing there.",
            "Volunteers are needed to help maintain the two receiving towers on Cobb Ridge "
            "this summer; training is provided by the nature centre.",
        ),
    ),
    Article(
        section="science",
        key="drought-soil-microbes",
        title="Soil microbes help crops survive drought, field trial finds",
        published="2024-06-07 12:00",
        author="Grace Liu",
        visibility=Visibility.FEED_ONLY,
        tags=("agriculture", "biology"),
        body=(
            "Wheat grown in soil treated with a blend of native bacteria produced 14 "
            "percent more grain during last summer's drought than untreated plots, "
            "according to a three-year field trial at the county research farm.",
            "The bacteria colonise the roots and release compounds that help plants hold "
            "on to water. In wet years the treatment made no measurable difference to the "
            "harvest.",
            "Farmers should not expect a miracle product yet, cautioned agronomist Luis "
            "Serrano. The blend has been tested on only one soil type, and the bacteria "
            "must be applied with the seed, which adds a step at planting time.",
        ),
    ),
)
