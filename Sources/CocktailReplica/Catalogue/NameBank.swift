/// The word lists the catalogue generator draws from.
///
/// Category names, glass names and ingredient names are generic vocabulary (the category names are
/// the real API's eleven, so that clients' hard-coded lists work). Drink names, instructions and
/// attributions are invented by combining the words below: no record of the real catalogue is copied.
enum NameBank {
    /// The real API's categories in `list.php?c=list` order, with drink counts at scale 1
    /// (635 in all, three categories above the free key's 100-result cap).
    static let categories: [(name: String, count: Int)] = [
        ("Ordinary Drink", 150),
        ("Cocktail", 130),
        ("Shake", 22),
        ("Other / Unknown", 38),
        ("Cocoa", 9),
        ("Shot", 106),
        ("Coffee / Tea", 25),
        ("Homemade Liqueur", 12),
        ("Punch / Party Drink", 42),
        ("Beer", 16),
        ("Soft Drink", 85),
    ]

    /// Categories whose drinks are mostly made without alcohol.
    static let mostlySoftCategories: Set<String> = ["Shake", "Cocoa", "Coffee / Tea", "Soft Drink"]

    static let alcoholicFlags = ["Alcoholic", "Non alcoholic", "Optional alcohol"]

    static let glasses = [
        "Highball glass", "Cocktail glass", "Old-fashioned glass", "Collins glass", "Shot glass",
        "Whiskey Glass", "Coffee mug", "Champagne flute", "Wine Glass", "Beer mug", "Pint glass",
        "Margarita glass", "Hurricane glass", "Irish coffee cup", "Punch bowl", "Mason jar",
        "Copper Mug", "Martini Glass", "Cordial glass", "Brandy snifter", "Balloon Glass",
        "Coupe Glass", "Nick and Nora Glass", "Jar", "Pitcher", "Parfait glass", "Beer pilsner",
        "White wine glass", "Pousse cafe glass", "Julep tin", "Tiki mug", "Carafe",
    ]

    /// Ingredients in `list.php?i=list` order: name, type, alcoholic, ABV.
    static let ingredients: [(name: String, type: String?, alcoholic: Bool, abv: String?)] = [
        ("Vodka", "Vodka", true, "40"), ("Gin", "Gin", true, "40"), ("Light rum", "Rum", true, "40"),
        ("Dark rum", "Rum", true, "40"), ("Tequila", "Tequila", true, "40"), ("Bourbon", "Whiskey", true, "45"),
        ("Lemon juice", "Juice", false, nil), ("Lime juice", "Juice", false, nil), ("Sugar", nil, false, nil),
        ("Ice", nil, false, nil), ("Orange juice", "Juice", false, nil), ("Triple sec", "Liqueur", true, "30"),
        ("Sweet Vermouth", "Fortified Wine", true, "16"), ("Dry Vermouth", "Fortified Wine", true, "18"),
        ("Angostura bitters", "Bitters", true, "44"), ("Grenadine", "Syrup", false, nil),
        ("Cream", "Dairy", false, nil), ("Milk", "Dairy", false, nil), ("Soda water", "Soft Drink", false, nil),
        ("Tonic water", "Soft Drink", false, nil), ("Cola", "Soft Drink", false, nil), ("Scotch", "Whisky", true, "40"),
        ("Brandy", "Brandy", true, "40"), ("Amaretto", "Liqueur", true, "28"),
        ("Coffee liqueur", "Liqueur", true, "20"),
        ("Crème de cassis", "Liqueur", true, "20"), ("Crème de menthe", "Liqueur", true, "25"),
        ("Crème de cacao", "Liqueur", true, "25"), ("Añejo rum", "Rum", true, "40"), ("Mezcal", "Mezcal", true, "42"),
        ("Rye whiskey", "Whiskey", true, "45"), ("Irish whiskey", "Whiskey", true, "40"),
        ("Cognac", "Brandy", true, "40"),
        ("Apricot brandy", "Brandy", true, "30"), ("Peach schnapps", "Schnapps", true, "20"),
        ("Peppermint schnapps", "Schnapps", true, "30"), ("Kirschwasser", "Brandy", true, "40"),
        ("Absinthe", "Spirit", true, "60"), ("Sambuca", "Liqueur", true, "38"), ("Champagne", "Wine", true, "12"),
        ("Prosecco", "Wine", true, "11"), ("Red wine", "Wine", true, "13"), ("White wine", "Wine", true, "12"),
        ("Port", "Fortified Wine", true, "20"), ("Sherry", "Fortified Wine", true, "17"), ("Lager", "Beer", true, "5"),
        ("Stout", "Beer", true, "6"), ("Ale", "Beer", true, "5"), ("Cider", "Cider", true, "5"),
        ("Ginger ale", "Soft Drink", false, nil), ("Ginger beer", "Soft Drink", false, nil),
        ("Lemonade", "Soft Drink", false, nil), ("Pineapple juice", "Juice", false, nil),
        ("Cranberry juice", "Juice", false, nil), ("Grapefruit juice", "Juice", false, nil),
        ("Apple juice", "Juice", false, nil), ("Tomato juice", "Juice", false, nil),
        ("Coconut milk", "Dairy Alternative", false, nil), ("Coconut cream", nil, false, nil),
        ("Simple syrup", "Syrup", false, nil), ("Honey", "Sweetener", false, nil), ("Maple syrup", "Syrup", false, nil),
        ("Agave syrup", "Syrup", false, nil), ("Orgeat syrup", "Syrup", false, nil), ("Egg white", nil, false, nil),
        ("Egg yolk", nil, false, nil), ("Mint", "Herb", false, nil), ("Basil", "Herb", false, nil),
        ("Rosemary", "Herb", false, nil), ("Cinnamon", "Spice", false, nil), ("Nutmeg", "Spice", false, nil),
        ("Cloves", "Spice", false, nil), ("Vanilla extract", "Flavouring", false, nil), ("Salt", nil, false, nil),
        ("Black pepper", "Spice", false, nil), ("Tabasco sauce", "Sauce", false, nil),
        ("Worcestershire sauce", "Sauce", false, nil), ("Celery salt", "Spice", false, nil),
        ("Lemon", "Fruit", false, nil), ("Lime", "Fruit", false, nil), ("Orange", "Fruit", false, nil),
        ("Orange peel", "Fruit", false, nil), ("Cherry", "Fruit", false, nil),
        ("Maraschino cherry", "Fruit", false, nil),
        ("Strawberries", "Fruit", false, nil), ("Raspberries", "Fruit", false, nil),
        ("Blueberries", "Fruit", false, nil),
        ("Banana", "Fruit", false, nil), ("Pineapple", "Fruit", false, nil), ("Mango", "Fruit", false, nil),
        ("Peach", "Fruit", false, nil), ("Apple", "Fruit", false, nil), ("Cucumber", "Vegetable", false, nil),
        ("Celery", "Vegetable", false, nil), ("Olive", nil, false, nil), ("Coffee", "Coffee", false, nil),
        ("Espresso", "Coffee", false, nil), ("Tea", "Tea", false, nil), ("Green tea", "Tea", false, nil),
        ("Hot chocolate", "Cocoa", false, nil), ("Cocoa powder", "Cocoa", false, nil),
        ("Chocolate syrup", "Syrup", false, nil), ("Whipped cream", "Dairy", false, nil),
        ("Vanilla ice-cream", "Dairy", false, nil), ("Yoghurt", "Dairy", false, nil),
        ("Crème fraîche", "Dairy", false, nil), ("Brown sugar", "Sweetener", false, nil),
        ("Powdered sugar", "Sweetener", false, nil), ("Sugar syrup", "Syrup", false, nil),
        ("Blackberry liqueur", "Liqueur", true, "17"), ("Cherry liqueur", "Liqueur", true, "24"),
        ("Elderflower liqueur", "Liqueur", true, "20"), ("Hazelnut liqueur", "Liqueur", true, "20"),
        ("Melon liqueur", "Liqueur", true, "21"), ("Herbal liqueur", "Liqueur", true, "35"),
        ("Anise", "Spice", false, nil), ("Star anise", "Spice", false, nil), ("Ginger", "Spice", false, nil),
        ("Pomegranate juice", "Juice", false, nil), ("Passion fruit juice", "Juice", false, nil),
        ("Lychee juice", "Juice", false, nil), ("Carbonated water", "Soft Drink", false, nil),
        ("Sparkling water", "Soft Drink", false, nil), ("Root beer", "Soft Drink", false, nil),
        ("Energy drink", "Soft Drink", false, nil), ("Everclear", "Spirit", true, "95"),
        ("Grain alcohol", "Spirit", true, "75"), ("Aquavit", "Spirit", true, "40"), ("Pisco", "Brandy", true, "40"),
        ("Cachaça", "Rum", true, "40"), ("Sake", "Rice Wine", true, "15"), ("Soju", "Spirit", true, "20"),
        ("Bénédictine", "Liqueur", true, "40"), ("Eau de vie", "Brandy", true, "45"), ("Pálinka", "Brandy", true, "50"),
    ]

    static let adjectives = [
        "Velvet", "Copper", "Midnight", "Golden", "Salty", "Rusty", "Silver", "Crimson", "Lazy", "Wild",
        "Frozen", "Smoky", "Bitter", "Sunny", "Stormy", "Quiet", "Electric", "Hidden", "Lucky", "Old",
        "Royal", "Gentle", "Brave", "Misty", "Spiced", "Burnt", "Tropical", "Northern", "Southern", "Paper",
        "Iron", "Emerald", "Amber", "Scarlet", "Dusty", "Hazy", "Jolly", "Crooked", "Lonely", "Merry",
        "Crème", "Señor", "Über", "Île", "Café", "Frío", "Naïve", "Doña", "Blue", "Pink",
    ]

    static let nouns = [
        "Harbor", "Lantern", "Fox", "Meadow", "Anchor", "Compass", "Orchard", "Comet", "Parrot", "Tiger",
        "Garden", "Bishop", "Sailor", "Pirate", "Baron", "Widow", "Canyon", "Island", "Lagoon", "Monsoon",
        "Violin", "Velocipede", "Typewriter", "Zeppelin", "Cactus", "Mango", "Peach", "Thistle", "Juniper", "Cedar",
        "Falcon", "Raven", "Otter", "Walrus", "Moose", "Badger", "Kettle", "Bonfire", "Lighthouse", "Carousel",
        "Tango", "Waltz", "Samba", "Mambo", "Bolero", "Cabana", "Veranda", "Terrace", "Citadel", "Paddock",
    ]

    static let suffixes = [
        "", "", "", "", "Fizz", "Sour", "Smash", "Punch", "Flip", "Cooler", "Martini", "Sling", "Julep",
        "Highball", "Spritz", "Toddy", "Shake", "Float", "Collins", "Mule", "Rickey", "Cobbler", "Shooter",
    ]

    static let prefixes = ["", "", "", "", "", "", "", "", "The ", "57 ", "1/2 ", "Half/Half ", "Mrs. ", "Big "]

    static let measures = [
        "1 oz ", "1 1/2 oz ", "2 oz ", "1/2 oz ", "3/4 oz ", "2 cl ", "4 cl ", "1 tsp ", "2 tsp ", "1 tblsp ",
        "1 dash ", "2 dashes ", "1 cup ", "1/2 cup ", "Juice of 1/2 ", "1 slice ", "1 twist of ", "Top up with ",
        "Garnish with ", "1 shot ", "2 shots ", "1 part ", "2 parts ", "6 oz ", "Fill with ", "1 pinch ", "1 can ",
        "12 oz ", "1 ", "2 ",
    ]

    static let tags = [
        "IBA", "Classic", "Sour", "Fruity", "Summer", "Christmas", "Strong", "Sweet", "Brunch", "Party",
        "Hangover", "Alcoholic", "ContemporaryClassic", "Citrus", "Creamy", "Dessert", "Winter", "Beach",
    ]

    static let ibaLists = ["Unforgettables", "Contemporary Classics", "New Era Drinks"]

    static let people = [
        "Ada Winterbourne", "Bram Okafor", "Cleo Marchetti", "Dmitri Halvorsen", "Esme Nakamura",
        "Felix Oyelaran", "Greta Lindqvist", "Hugo Castellanos", "Iris Bénard", "Jonas Přibyl",
    ]

    static let verbs = ["Shake", "Stir", "Build", "Blend", "Muddle", "Layer", "Pour", "Whisk"]

    static let endings = [
        "Serve immediately.", "Garnish and serve.", "Top with a little soda if you like.",
        "Serve over fresh ice.", "Drink it slowly.", "Best served very cold.",
    ]

    static let foreignInstructions: [(key: String, text: String)] = [
        ("ES", "Agitar con hielo y colar en el vaso. Servir frío."),
        ("DE", "Alle Zutaten mit Eis schütteln und in das Glas abseihen. Kühl servieren."),
        ("FR", "Secouer avec de la glace et verser dans le verre. Servir très frais."),
        ("IT", "Shakerare con ghiaccio e versare nel bicchiere. Servire freddo."),
        ("ZH-HANS", "加冰摇匀后倒入杯中，冷饮。"),
        ("ZH-HANT", "加冰搖勻後倒入杯中，冷飲。"),
    ]

    static let slugCharacters: [Character] = Array("abcdefghijklmnopqrstuvwxyz0123456789")
}
